import { z } from './zod';

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

/** Micro-dollars shown as dollars with two decimals, the way the spec's texts print amounts. */
export function formatDollars(micros: number): string {
  return (micros / MICROS_PER_DOLLAR).toFixed(2);
}

const DECIMAL = /^(\d{1,15})(?:\.(\d+))?$/;

/**
 * A positive dollar amount from a JSON number or a form field, read exactly into micro-dollars:
 * the digits are parsed as written, never through a float product, so 0.1 is 100,000 and
 * a seventh decimal, an exponent, NaN or Infinity is refused with a clear text.
 */
export function dollarAmount(
  texts: { required: string; invalid: string },
  maxMicros: number,
  { allowZero = false } = {},
) {
  const described = z.unknown().openapi({
    type: 'number',
    description: `Dollars, up to 6 decimals, at most ${formatDollars(maxMicros)}`,
    example: 10.5,
  });
  return described.transform((value, ctx): number => {
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      return fail(texts.required);
    }
    if (typeof value !== 'number' && typeof value !== 'string') return fail(texts.invalid);
    const written = typeof value === 'number' ? String(value) : value.trim();
    if (/^-/.test(written)) return fail(texts.invalid);
    const match = DECIMAL.exec(written);
    if (!match) return fail(texts.invalid);
    const fraction = match[2] ?? '';
    if (fraction.length > 6) return fail('The amount can have at most 6 decimal places.');
    const micros = Number(match[1]) * MICROS_PER_DOLLAR + Number(fraction.padEnd(6, '0'));
    if (micros < 0 || (micros === 0 && !allowZero)) return fail(texts.invalid);
    if (micros > maxMicros) return fail(`The amount can be at most ${formatDollars(maxMicros)}$.`);
    return micros;
  });
}
