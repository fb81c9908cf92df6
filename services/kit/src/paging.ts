import { z } from 'zod';

/** Lists are paged on the server (ARCHITECTURE rule 6): 10 a page unless asked otherwise. */
export const pageSchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(10),
});
export type PageQuery = z.infer<typeof pageSchema>;

/** The answer fields every paged list shares. */
export function pageAnswer(query: PageQuery, total: number) {
  return { page: query.page, total, totalPages: Math.max(1, Math.ceil(total / query.limit)) };
}

/** Displayed times are the stored time plus 2 hours (spec §9): a calendar day starts at 00:00 in that zone. */
export const DISPLAY_OFFSET_MS = 2 * 3600_000;
const DAY_MS = 24 * 3600_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

const dateBound = (edge: 'start' | 'end') =>
  z
    .string()
    .trim()
    .max(40)
    .transform((text, ctx) => {
      const dayOnly = DATE_ONLY.test(text);
      const at = new Date(dayOnly ? `${text}T00:00:00Z` : text).getTime();
      if (Number.isNaN(at)) {
        ctx.addIssue({ code: 'custom', message: 'Please enter a valid date.' });
        return z.NEVER;
      }
      if (!dayOnly) return new Date(at);
      // A day in the display zone: from its first to its last millisecond.
      const start = at - DISPLAY_OFFSET_MS;
      return new Date(edge === 'start' ? start : start + DAY_MS - 1);
    })
    .optional();

/** The date filter (spec §5): from the start of the from-day to the end of the to-day. */
export const dateRangeSchema = z.object({ from: dateBound('start'), to: dateBound('end') });

/** A filter on a date field for the range, or nothing when no bound is given. */
export function dateFilter(field: string, range: z.infer<typeof dateRangeSchema>) {
  if (!range.from && !range.to) return {};
  return {
    [field]: { ...(range.from && { $gte: range.from }), ...(range.to && { $lte: range.to }) },
  };
}

/** The start of the current month in the display zone (spec §9: monthly sales). */
export function startOfDisplayMonth(now = new Date()): Date {
  const local = new Date(now.getTime() + DISPLAY_OFFSET_MS);
  return new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1) - DISPLAY_OFFSET_MS);
}

const HOUR_MS = 3600_000;

/** The hour `at` falls in, as a key: '2026-11-24T20' (UTC), which sorts as time does. */
export function hourKey(at: Date): string {
  return at.toISOString().slice(0, 13);
}
/** When the hour of a key starts, in milliseconds. */
export const hourStart = (hour: string) => Date.parse(`${hour}:00:00.000Z`);
/** The key of the hour after. */
export const hourAfter = (hour: string) => hourKey(new Date(hourStart(hour) + HOUR_MS));

/**
 * The hours a summary kept by the hour (sales, order tallies) closes next at `now`: after the
 * last hour it closed (or the hour before the first record) through the last hour whose grace
 * period is over, held back before the hour of the earliest record still pending. Undefined
 * when there is none.
 */
export async function hoursToClose(
  last: string | undefined,
  records: { first: () => Promise<Date | undefined>; pending: () => Promise<Date | undefined> },
  graceMs: number,
  now: Date,
): Promise<{ after: string; through: string } | undefined> {
  const first = last ? undefined : await records.first();
  if (!last && !first) return undefined;
  const after = last ?? hourKey(new Date(first!.getTime() - HOUR_MS));
  let through = hourKey(new Date(now.getTime() - graceMs - HOUR_MS));
  if (through <= after) return undefined;
  const pending = await records.pending();
  if (pending) {
    const before = hourKey(new Date(pending.getTime() - HOUR_MS));
    if (before < through) through = before;
    if (through <= after) return undefined;
  }
  return { after, through };
}
