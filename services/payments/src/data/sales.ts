import {
  hourAfter,
  hourKey,
  hoursToClose,
  hourStart,
  insertOnce,
  modelOf,
  startOfDisplayMonth,
} from '@raseed/kit';
import { Schema, type Connection, type Model } from 'mongoose';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * An hour is summed this long after it ended. A sale belongs to the hour of its decision's
 * time, and its decision is recorded at once; one recorded later than this after its time
 * (its process paused that long between the two) is left out of the figures.
 */
const SALE_GRACE_MS = 10 * 60_000;
/** A summary keeps the amounts of this many days of hours: the longest figure (a month) and a day. */
const KEPT_HOURS_MS = 33 * DAY_MS;
/** Summaries older than this are deleted (the latest is always kept). */
const KEPT_SUMMARIES_MS = DAY_MS;
/** Up to this many hours not yet summed are read one hour at a time (by index); more, all at once. */
const HOURS_READ_APART = 48;

/** A sale as the figures read it: a confirmed IN payment. */
export interface SaleRow {
  userId: string;
  /** Micro-dollars. */
  amount: number;
  decidedAt: Date | null;
  saleHour?: string;
}

/** Where the sales come from: the payments. */
export interface SaleSource {
  /** The sales of one hour. */
  salesIn(hour: string): Promise<SaleRow[]>;
  /** Every sale. */
  allSales(): Promise<SaleRow[]>;
  /** When the oldest payment was made, if any: no sale is older. */
  firstPaymentAt(): Promise<Date | undefined>;
  /** The earliest time of a confirmation whose payment does not show it yet, if any. */
  earliestUnapplied(): Promise<Date | undefined>;
}

/**
 * The sales through one hour, summed once when that hour is over: inserted under the hour's
 * key (rule 9), so instances that sum it at the same moment agree on one record.
 */
interface SaleSummary {
  /** The last hour summed. */
  _id: string;
  /** Micro-dollars of every sale through that hour. */
  total: number;
  /** The amount of each hour with sales, for the last KEPT_HOURS_MS. */
  hours: Record<string, number>;
  /** Each customer's sales through that hour. */
  users: Record<string, number>;
}

/**
 * A summary as stored: the hours and the customers as JSON text, as the local store reads one
 * long string far faster than thousands of fields (7 ms against 85 ms for 5,000 customers).
 */
export interface StoredSummary {
  _id: string;
  total: number;
  hours: string;
  users: string;
}

const summarySchema = new Schema(
  {
    _id: String,
    total: { type: Number, required: true },
    hours: { type: String, required: true },
    users: { type: String, required: true },
  },
  { versionKey: false },
);

export const saleSummaryModel = (conn: Connection) =>
  modelOf<StoredSummary>(conn, 'SaleSummary', summarySchema, 'sale_summaries');

const stored = (s: SaleSummary): StoredSummary => ({
  ...s,
  hours: JSON.stringify(s.hours),
  users: JSON.stringify(s.users),
});
const parsed = (s: StoredSummary): SaleSummary => ({
  ...s,
  hours: JSON.parse(s.hours) as Record<string, number>,
  users: JSON.parse(s.users) as Record<string, number>,
});

export interface SaleFigures {
  /** Micro-dollars, as the admin home shows them (spec §9). */
  total: number;
  weekly: number;
  monthly: number;
  /** Each customer's sales total. */
  users: Map<string, number>;
}

/**
 * The admin's sales figures without reading every sale: the latest summary, plus the sales of
 * the hours after it (the current one and the grace period), read by their hour's index.
 */
export class SalesBook {
  private closing = false;

  constructor(
    private readonly summaries: Model<StoredSummary>,
    private readonly source: SaleSource,
  ) {}

  private async latest(): Promise<SaleSummary | undefined> {
    const last = await this.summaries.findOne().sort({ _id: -1 }).lean<StoredSummary>();
    return last ? parsed(last) : undefined;
  }

  /** The sales of the hours after `after` (every one when null) through `through`. */
  private async salesBetween(after: string | null, through: string): Promise<SaleRow[]> {
    const hours: string[] = [];
    if (after !== null) {
      for (let h = hourAfter(after); h <= through && hours.length <= HOURS_READ_APART; h = hourAfter(h)) {
        hours.push(h);
      }
    }
    if (after === null || hours.length > HOURS_READ_APART) {
      const all = await this.source.allSales();
      return all.filter((s) => s.saleHour && (after === null || s.saleHour > after) && s.saleHour <= through);
    }
    return (await Promise.all(hours.map((h) => this.source.salesIn(h)))).flat();
  }

  /**
   * Sums the hours that are over (their grace period included) into a new summary; none while
   * a confirmation of one of them has not reached its payment. Safe to run on every instance
   * at once. Answers the last hour summed, if it summed any.
   */
  async close(now = new Date()): Promise<string | undefined> {
    if (this.closing) return undefined;
    this.closing = true;
    try {
      const last = await this.latest();
      // A confirmation that has not reached its payment yet holds its hour back.
      const hours = await hoursToClose(
        last?._id,
        { first: () => this.source.firstPaymentAt(), pending: () => this.source.earliestUnapplied() },
        SALE_GRACE_MS,
        now,
      );
      if (!hours) return undefined;
      const { after, through } = hours;

      const sales = await this.salesBetween(last ? after : null, through);
      const summary = sum(last ?? { _id: after, total: 0, hours: {}, users: {} }, sales, through);
      await insertOnce(this.summaries, stored(summary));
      const kept = hourKey(new Date(now.getTime() - KEPT_SUMMARIES_MS));
      await this.summaries.deleteMany({ _id: { $lt: kept < through ? kept : through } });
      return through;
    } finally {
      this.closing = false;
    }
  }

  /** The figures at `now`: total, the last 7 days, since the 1st of the month, and per customer. */
  async figures(now = new Date()): Promise<SaleFigures> {
    const last = await this.latest();
    const open = await this.salesBetween(last?._id ?? null, hourKey(now));
    const weekStart = now.getTime() - 7 * DAY_MS;
    const monthStart = startOfDisplayMonth(now).getTime();
    const figures: SaleFigures = {
      total: last?.total ?? 0,
      weekly: 0,
      monthly: 0,
      users: new Map(Object.entries(last?.users ?? {})),
    };
    if (last) {
      // Whole hours from their amounts; the hour the week starts within, from its sales.
      for (const [hour, amount] of Object.entries(last.hours)) {
        if (hourStart(hour) >= weekStart) figures.weekly += amount;
        if (hourStart(hour) >= monthStart) figures.monthly += amount;
      }
      const weekHour = hourKey(new Date(weekStart));
      if (hourStart(weekHour) < weekStart && weekHour <= last._id && last.hours[weekHour]) {
        for (const sale of await this.source.salesIn(weekHour)) {
          if ((sale.decidedAt?.getTime() ?? 0) >= weekStart) figures.weekly += sale.amount;
        }
      }
    }
    for (const sale of open) {
      const at = sale.decidedAt?.getTime() ?? 0;
      figures.total += sale.amount;
      if (at >= weekStart) figures.weekly += sale.amount;
      if (at >= monthStart) figures.monthly += sale.amount;
      figures.users.set(sale.userId, (figures.users.get(sale.userId) ?? 0) + sale.amount);
    }
    return figures;
  }
}

/** The summary through `through`: `last` and the sales of the hours after it. */
function sum(last: SaleSummary, sales: SaleRow[], through: string): SaleSummary {
  const keptFrom = hourKey(new Date(hourStart(through) - KEPT_HOURS_MS));
  const hours: Record<string, number> = {};
  for (const [hour, amount] of Object.entries(last.hours)) if (hour >= keptFrom) hours[hour] = amount;
  const users = { ...last.users };
  let total = last.total;
  for (const sale of sales) {
    total += sale.amount;
    const hour = sale.saleHour!;
    if (hour >= keptFrom) hours[hour] = (hours[hour] ?? 0) + sale.amount;
    users[sale.userId] = (users[sale.userId] ?? 0) + sale.amount;
  }
  return { _id: through, total, hours, users };
}
