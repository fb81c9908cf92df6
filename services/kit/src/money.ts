/** Money is stored and sent between services as integer micro-dollars (1 USD = 1,000,000). */
export const MICROS_PER_DOLLAR = 1_000_000;

/** Converts a dollar amount read at the HTTP edge into micro-dollars, refusing what is not a finite number. */
export function toMicros(dollars: number): number {
  if (!Number.isFinite(dollars)) throw new RangeError('not a finite amount');
  return Math.round(dollars * MICROS_PER_DOLLAR);
}

/** Converts micro-dollars into the plain dollar number the spec's screens read. */
export function toDollars(micros: number): number {
  return micros / MICROS_PER_DOLLAR;
}
