/**
 * The one price rule (spec §9), used by every service that shows or charges a price:
 * unit price = price × custom multiplier (when a custom product of that name exists)
 * × (1 − discount / 100), in integer micro-dollars.
 *
 * A multiplier is kept to 4 decimals (a profit percentage to 2) and a discount to 2
 * decimals, so the product is computed exactly in integers and rounded once, half up.
 */
const MULTIPLIER_SCALE = 10_000n;
const DISCOUNT_SCALE = 10_000n; // 100 % in hundredths of a percent

export function unitPrice(
  priceMicros: number,
  multiplier: number | null,
  discountPercent: number | null,
): number {
  if (!Number.isSafeInteger(priceMicros) || priceMicros < 0)
    throw new RangeError('price must be whole micro-dollars');
  const m = BigInt(Math.round((multiplier ?? 1) * Number(MULTIPLIER_SCALE)));
  const d = BigInt(Math.round((discountPercent ?? 0) * 100));
  if (m < 0n) throw new RangeError('multiplier must not be negative');
  if (d < 0n || d > DISCOUNT_SCALE) throw new RangeError('discount must be between 0 and 100');
  const scale = MULTIPLIER_SCALE * DISCOUNT_SCALE;
  const exact = BigInt(priceMicros) * m * (DISCOUNT_SCALE - d);
  return Number((exact + scale / 2n) / scale);
}

/** The multiplier an admin's profit percentage stands for (spec §5: value / 100 + 1). */
export function profitMultiplier(percent: number): number {
  return Math.round((percent / 100 + 1) * 10_000) / 10_000;
}

/** The profit percentage a multiplier stands for, with 2 decimals (spec §9). */
export function profitPercent(multiplier: number): number {
  return Math.round((multiplier - 1) * 100 * 100) / 100;
}

/** Micro-dollars as the dollars a price is shown with: two decimals, or six for supplier prices (spec §9). */
export function displayPrice(micros: number, decimals: 2 | 6 = 2): number {
  // Rounded in whole units of the last decimal, so 1.005 shows as 1.01, not as float noise.
  return decimals === 6 ? micros / 1_000_000 : Math.round(micros / 10_000) / 100;
}
