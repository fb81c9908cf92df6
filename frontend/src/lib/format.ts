/** Money and times as the screens show them (spec §9). */

/**
 * A price with two decimals and $, as in 'You have only 12.50$'. A per-unit price below
 * a cent (a follower, a like) keeps two significant digits instead of showing 0.00$.
 */
export const dollars = (amount: number) =>
  amount > 0 && amount < 0.01 ? `${Number(amount.toPrecision(2))}$` : `${amount.toFixed(2)}$`;

const DISPLAY_OFFSET_MS = 2 * 3600_000;

/** Displayed times are the stored time plus 2 hours, whatever the browser's own zone. */
export function displayTime(iso: string): string {
  return new Date(new Date(iso).getTime() + DISPLAY_OFFSET_MS).toLocaleString('en-GB', {
    timeZone: 'UTC',
    dateStyle: 'medium',
    timeStyle: 'short',
  });
}

/** Today's date in the display zone, as a date input holds it (YYYY-MM-DD). */
export function today(): string {
  return new Date(Date.now() + DISPLAY_OFFSET_MS).toISOString().slice(0, 10);
}
