import { Limit, redisConnection } from '@raseed/kit';

describe('Limit while Redis is away', () => {
  it('counts in the process instead of letting every try through', async () => {
    // Nothing listens on port 1: every command fails at once, as when Redis is down.
    const away = redisConnection('redis://127.0.0.1:1');
    away.on('error', () => undefined);
    try {
      const limit = new Limit(away, `away-${Date.now()}`, 3, 60);
      expect([await limit.count('a'), await limit.count('a'), await limit.count('a')]).toEqual([
        false,
        false,
        false,
      ]);
      expect(await limit.spent('a')).toBe(true);
      expect(await limit.count('a')).toBe(true);
      expect(await limit.spent('b')).toBe(false);
      await limit.clear('a');
      expect(await limit.count('a')).toBe(false);
    } finally {
      away.disconnect();
    }
  });
});
