import { bumpVersion, redisConnection, VersionedMemo } from '@raseed/kit';
import { uniqueName } from '@raseed/kit/testing';

/** VersionedMemo against the real Redis: what it answers again, and when it reads afresh. */
const redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
afterAll(() => redis.disconnect());

/** A store read that counts itself and answers the value the "store" holds now. */
function source(initial: string) {
  const state = { value: initial, reads: 0 };
  return { state, read: async () => (state.reads++, state.value) };
}

describe('VersionedMemo', () => {
  it('answers a value again until a change bumps the version, then reads afresh', async () => {
    const key = uniqueName('raseed:test:memo:');
    const memo = new VersionedMemo<string>(redis, key);
    const { state, read } = source('price 5');
    expect(await memo.get('p1', read)).toBe('price 5');
    expect(await memo.get('p1', read)).toBe('price 5');
    expect(state.reads).toBe(1);

    // A change: written first, then the version bumped; every reader after the bump sees it.
    state.value = 'price 7';
    await bumpVersion(redis, key);
    expect(await memo.get('p1', read)).toBe('price 7');
    expect(state.reads).toBe(2);
    // Another process's memo follows the same version.
    const other = new VersionedMemo<string>(redis, key);
    expect(await other.get('p1', read)).toBe('price 7');
  });

  it('does not keep a value read across a bump', async () => {
    const key = uniqueName('raseed:test:memo:');
    const memo = new VersionedMemo<string>(redis, key);
    const { state } = source('old');
    let release!: () => void;
    // A slow read that started before the change and answers what the store held then.
    const slow = memo.get('p1', () => new Promise<string>((resolve) => (release = () => resolve('old'))));
    await new Promise((r) => setTimeout(r, 20));
    state.value = 'new';
    await bumpVersion(redis, key);
    expect(await memo.get('p1', async () => state.value)).toBe('new');
    release();
    expect(await slow).toBe('old');
    expect(await memo.get('p1', async () => 'read again')).toBe('new');
  });

  it('keeps at most `most` values, and none for longer than ttlMs', async () => {
    const key = uniqueName('raseed:test:memo:');
    const memo = new VersionedMemo<number>(redis, key, { most: 2, ttlMs: 50 });
    let reads = 0;
    const read = async () => ++reads;
    await memo.get('a', read);
    await memo.get('b', read);
    await memo.get('a', read); // a is now the most recently read
    await memo.get('c', read); // b is dropped
    expect(reads).toBe(3);
    await memo.get('a', read);
    await memo.get('b', read);
    expect(reads).toBe(4);
    await new Promise((r) => setTimeout(r, 60));
    await memo.get('a', read);
    expect(reads).toBe(5);
  });

  it('reads the store every time while Redis is away', async () => {
    // Nothing listens on port 1: every command fails at once, as when Redis is down.
    const away = redisConnection('redis://127.0.0.1:1');
    away.on('error', () => undefined);
    try {
      const memo = new VersionedMemo<string>(away, 'raseed:test:memo:away');
      const { state, read } = source('v');
      await memo.get('p1', read);
      await memo.get('p1', read);
      expect(state.reads).toBe(2);
    } finally {
      away.disconnect();
    }
  });
});
