import fc from 'fast-check';
import { displayPrice, profitMultiplier, profitPercent, unitPrice } from '../src/pricing';

describe('the price rule (spec §9)', () => {
  it.each([
    // price (micro-dollars), multiplier, discount %, unit price (micro-dollars)
    [10_000_000, null, null, 10_000_000],
    [10_000_000, 1.1, null, 11_000_000],
    [10_000_000, null, 20, 8_000_000],
    [10_000_000, 1.1, 20, 8_800_000],
    [912_345, 1.25, null, 1_140_431], // 1,140,431.25 rounds down
    [912_345, 1.1, 12.5, 878_132], // 878,132.0625
    [1_500, 1.1, null, 1_650], // a per-unit social-media price keeps its micro-dollars
    [3, 1.5, null, 5], // 4.5 rounds half up
    [10_000_000, 1, 100, 0],
    [0, 1.1, 10, 0],
  ])('%i × %p × (1 − %p%) = %i', (price, multiplier, discount, expected) => {
    expect(unitPrice(price, multiplier, discount)).toBe(expected);
  });

  it('shows prices with two decimals, rounding half up in cents, and supplier prices with six', () => {
    expect(displayPrice(1_005_000)).toBe(1.01);
    expect(displayPrice(1_004_999)).toBe(1);
    expect(displayPrice(8_800_000)).toBe(8.8);
    expect(displayPrice(912_345, 6)).toBe(0.912345);
  });

  it('turns a profit percentage into the stored multiplier and back (spec §5)', () => {
    expect(profitMultiplier(10)).toBe(1.1);
    expect(profitMultiplier(12.25)).toBe(1.1225);
    expect(profitMultiplier(0)).toBe(1);
    expect(profitPercent(1.1225)).toBe(12.25);
    expect(profitPercent(1)).toBe(0);
  });

  it('refuses what is not a price, a multiplier or a discount', () => {
    expect(() => unitPrice(-1, null, null)).toThrow(RangeError);
    expect(() => unitPrice(1.5, null, null)).toThrow(RangeError);
    expect(() => unitPrice(100, -0.5, null)).toThrow(RangeError);
    expect(() => unitPrice(100, null, 101)).toThrow(RangeError);
  });

  it('is never negative and never grows with a larger discount', () => {
    const price = fc.integer({ min: 0, max: 100_000_000_000 });
    const multiplier = fc.integer({ min: 0, max: 100_000 }).map((m) => m / 10_000);
    const discount = fc.integer({ min: 0, max: 10_000 }).map((d) => d / 100);
    fc.assert(
      fc.property(price, multiplier, discount, discount, (p, m, d1, d2) => {
        const [low, high] = d1 <= d2 ? [d1, d2] : [d2, d1];
        const withLow = unitPrice(p, m, low);
        const withHigh = unitPrice(p, m, high);
        return withHigh >= 0 && withLow >= 0 && withHigh <= withLow && Number.isSafeInteger(withLow);
      }),
      { numRuns: 2000 },
    );
  });
});
