import { DocumentLocks, HttpError, redisConnection } from '@raseed/kit';
import { uniqueName } from '@raseed/kit/testing';
import { accountsOfOwnDatabase } from './accounts';

/** Document locks against the real Redis: the writers of two processes (two DocumentLocks) on one account. */
const redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const accounts = accountsOfOwnDatabase('raseed_kit_locks_test_');

afterAll(() => {
  redis.disconnect();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DocumentLocks', () => {
  it('lets one writer at a time hold a document, across processes, and those of one process in their order', async () => {
    const [one, other] = [new DocumentLocks(redis), new DocumentLocks(redis)];
    const account = uniqueName('a');
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    const write = (locks: DocumentLocks, name: string) =>
      locks.run(accounts(), account, async () => {
        inside++;
        most = Math.max(most, inside);
        order.push(name);
        await pause(1);
        inside--;
      });
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        write(i % 3 === 2 ? other : one, `${i % 3 === 2 ? 'other' : 'one'}-${i}`),
      ),
    );

    expect(order).toHaveLength(60);
    expect(most).toBe(1);
    // Each process's own writers went in the order they came.
    for (const name of ['one', 'other']) {
      const mine = order.filter((o) => o.startsWith(`${name}-`)).map((o) => Number(o.split('-')[1]));
      expect(mine).toEqual([...mine].sort((a, b) => a - b));
    }
    // Nothing is left held or queued: a later writer gets the document at once.
    const started = Date.now();
    await one.run(accounts(), account, async () => undefined);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('hands each writer, in the round trip that takes the lock, what the writer before it left in Redis as it let go', async () => {
    // Two processes' writers, each on a Redis connection of its own.
    const second = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const account = uniqueName('a');
    const key = `raseed:test:${account}:count`;
    try {
      const sides = [
        { locks: new DocumentLocks(redis), conn: redis },
        { locks: new DocumentLocks(second), conn: second },
      ];
      const seen: (string | null)[] = [];
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const { locks, conn } = sides[i % 2]!;
          return locks.run(
            accounts(),
            account,
            async (peeked) => {
              seen.push(peeked);
              // Not waited for, as the ledger moves its hint on: it goes out ahead of the release.
              void conn.set(key, String(Number(peeked ?? 0) + 1));
            },
            key,
          );
        }),
      );
      expect(seen).toEqual([null, ...Array.from({ length: 39 }, (_, i) => String(i + 1))]);
    } finally {
      await redis.del(key);
      second.disconnect();
    }
  });

  it('answers 503 to a writer whose turn does not come in time, and the writers behind it still get theirs', async () => {
    const locks = new DocumentLocks(redis, 10_000, 300);
    const account = uniqueName('a');
    let letGo!: () => void;
    const held = locks.run(accounts(), account, () => new Promise<void>((resolve) => (letGo = resolve)));
    await pause(20);
    const waiting = locks.run(accounts(), account, async () => 'second');
    await expect(waiting).rejects.toMatchObject({ status: 503 });
    await expect(waiting).rejects.toBeInstanceOf(HttpError);

    const third = locks.run(accounts(), account, async () => 'third');
    letGo();
    await held;
    await expect(third).resolves.toBe('third');
  });
});
