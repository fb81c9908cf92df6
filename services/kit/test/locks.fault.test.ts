import { DocumentLocks, redisConnection } from '@raseed/kit';
import { uniqueName } from '@raseed/kit/testing';
import IORedis from 'ioredis';
import { accountsOfOwnDatabase } from './accounts';

/**
 * A lock whose SET times out here but reaches Redis later. After a restart Redis loads its data
 * before it answers, and a command queued meanwhile can time out for its writer and still run
 * once Redis is ready: the lock was then held by nobody for its whole TTL, and every writer of
 * that account waited it out and was answered busy (seen in the outage test: an order answered
 * after 14-21 s). Redis holds the SET here with CLIENT PAUSE, which stalls every client's
 * writes, so this runs in the fault project, alone.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = redisConnection(REDIS_URL);
const admin = new IORedis(REDIS_URL);
const accounts = accountsOfOwnDatabase('raseed_kit_locks_fault_');

afterAll(async () => {
  await admin.call('CLIENT', 'UNPAUSE');
  redis.disconnect();
  admin.disconnect();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DocumentLocks', () => {
  it('lets go of a lock whose SET timed out but ran later, so the next writer is not held out', async () => {
    const account = uniqueName('a');
    // The next writer waits at most 1 s: far less than the lock's 10 s TTL.
    const locks = new DocumentLocks(redis, 10_000, 1_000);

    // Redis holds writes for 3 s, past the connection's 2 s command timeout.
    await admin.call('CLIENT', 'PAUSE', '3000', 'WRITE');
    await expect(locks.run(accounts(), account, async () => 'first')).rejects.toThrow(/timed out/);
    await pause(1_500);
    // The SET ran when the pause ended; this connection's commands run in order, so once a
    // PING answers, whatever the timed-out writer sent after its SET has run too.
    await redis.ping();

    await expect(locks.run(accounts(), account, async () => 'second')).resolves.toBe('second');
  });
});
