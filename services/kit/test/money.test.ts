import { MICROS_PER_DOLLAR, toDollars, toMicros } from '@raseed/kit';

describe('money', () => {
  it('counts a dollar as one million micro-dollars', () => {
    expect(MICROS_PER_DOLLAR).toBe(1_000_000);
    expect(toMicros(1)).toBe(1_000_000);
    expect(toDollars(1_000_000)).toBe(1);
  });

  it.each([0, 0.01, 0.29, 1.5, 19.99, 123.456789, 1_000_000.01, -2.75])(
    'round-trips %p dollars through micro-dollars',
    (dollars) => {
      const micros = toMicros(dollars);
      expect(Number.isInteger(micros)).toBe(true);
      expect(toDollars(micros)).toBe(dollars);
    },
  );

  it('rounds float noise to the nearest whole micro-dollar', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(toMicros(0.1 + 0.2)).toBe(300_000);
    expect(toMicros(1.005)).toBe(1_005_000);
    expect(toMicros(0.0000004)).toBe(0);
    expect(toMicros(0.0000006)).toBe(1);
    expect(toMicros(0.1) + toMicros(0.2)).toBe(toMicros(0.3));
  });

  it.each([NaN, Infinity, -Infinity])('refuses %p', (dollars) => {
    expect(() => toMicros(dollars)).toThrow(RangeError);
  });
});
