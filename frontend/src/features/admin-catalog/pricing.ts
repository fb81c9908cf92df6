/** Supplier prices as the back office shows them (spec §9). */

const MICROS = 1_000_000;
const MULTIPLIER_SCALE = 10_000;

/** A supplier price with the spec's 6 decimals. */
export const supplierDollars = (amount: number) => `${amount.toFixed(6)}$`;

/** The multiplier a profit percentage stands for (spec §5: value / 100 + 1). */
export const profitMultiplier = (percent: number) => percent / 100 + 1;

/**
 * A supplier price with the store's profit on it, rounded to the micro-dollar as the server
 * rounds it, so the price shown here is the one customers pay before a discount.
 */
export function withProfit(price: number, multiplier: number): number {
  const micros = Math.round(price * MICROS) * Math.round(multiplier * MULTIPLIER_SCALE);
  return Math.round(micros / MULTIPLIER_SCALE) / MICROS;
}

/** Names are compared as the server compares them: without case and surrounding spaces. */
export const nameKey = (name: string) => name.trim().toLowerCase();
