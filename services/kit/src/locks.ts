import { randomUUID } from 'node:crypto';
import type IORedis from 'ioredis';
import type { Model } from 'mongoose';
import { within } from './deadline';
import { HttpError } from './errors';

// Deletes the lock only if it is still ours (it may have expired and been taken since).
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * Lets one writer at a time update a document, across processes, with a Redis lock per
 * document. FerretDB 1.x applies an update by reading the document and writing it back whole,
 * outside any transaction, so two concurrent updates of one document can lose one of them. The
 * lock makes that rare; it never makes it impossible (it expires under a writer slower than its
 * TTL), so nothing that must happen once depends on it (ARCHITECTURE rules 9 and 11): a fate is
 * decided by an insert under a unique key, events ride in inserts (see Outbox), and an updated
 * field only follows an inserted record, so a lost update is written again by the repair.
 * On MongoDB the lock is redundant and cheap.
 */
export class DocumentLocks {
  constructor(
    private readonly redis: IORedis,
    private readonly ttlMs = 10_000,
    private readonly waitMs = 10_000,
  ) {}

  /** This process's writers waiting for a document, in line: a released lock goes to the next at once. */
  private readonly lines = new Map<string, Promise<void>>();

  /**
   * Runs `work` as the only writer of the model's document whose `_id` (or other unique key) is
   * `id`. With `peek`, the Redis key's value is read in the same round trip as the lock is taken,
   * after it, and handed to `work` (what the writer before left there, say a hint it moved on
   * before letting go).
   */
  async run<T>(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any model's documents can be locked
    model: Model<any>,
    id: unknown,
    work: (peeked: string | null) => Promise<T>,
    peek?: string,
  ): Promise<T> {
    const name = `raseed:lock:${model.db.name}.${model.collection.collectionName}:${String(id)}`;
    const deadline = Date.now() + this.waitMs;
    // Writers of one process take the Redis lock one after another, each as the one before lets
    // go, instead of all polling it and sleeping while it is free (one busy account, say).
    const ahead = this.lines.get(name) ?? Promise.resolve();
    let done!: () => void;
    const line = ahead.then(() => new Promise<void>((resolve) => (done = resolve)));
    this.lines.set(name, line);
    try {
      await waitUntil(ahead, deadline);
      return await this.holding(name, deadline, work, peek);
    } finally {
      // Once this writer's turn came (or it gave up), the next one's comes.
      void ahead.then(() => done());
      if (this.lines.get(name) === line) void line.then(() => this.forget(name, line));
    }
  }

  private forget(name: string, line: Promise<void>): void {
    if (this.lines.get(name) === line) this.lines.delete(name);
  }

  private async holding<T>(
    name: string,
    deadline: number,
    work: (peeked: string | null) => Promise<T>,
    peek: string | undefined,
  ): Promise<T> {
    const token = randomUUID();
    let pause = 2;
    let taken: { peeked: string | null } | null;
    while (!(taken = await this.take(name, token, peek))) {
      if (Date.now() > deadline) throw busy();
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(50, pause * 2);
    }
    try {
      return await work(taken.peeked);
    } finally {
      // Not waited for: the next writer's SET follows it on this connection (one of this process),
      // or retries shortly (another's). A lock Redis cannot release expires by itself, and the
      // work's result stands either way.
      void this.release(name, token);
    }
  }

  /**
   * Asks Redis for the lock. A SET that timed out here may still reach Redis later (queued while
   * the connection was not ready, say, as when Redis is loading its data after a restart) and
   * take the lock for nobody until it expires, so the writer lets that token go. The release is
   * sent after the SET on the same connection, so Redis runs it after the SET, whenever that is.
   */
  private async take(name: string, token: string, peek?: string): Promise<{ peeked: string | null } | null> {
    // Sent together, so Redis reads `peek` right after the SET, on the same connection.
    const set = this.redis.set(name, token, 'PX', this.ttlMs, 'NX');
    const peeked = peek === undefined ? null : this.redis.get(peek).catch(() => null);
    try {
      return (await set) === 'OK' ? { peeked: await peeked } : null;
    } catch (err) {
      void this.release(name, token);
      throw err;
    }
  }

  private release(name: string, token: string): Promise<unknown> {
    return this.redis.eval(RELEASE, 1, name, token).catch(() => undefined);
  }
}

const busy = () => new HttpError(503, 'The service is busy. Please try again.');

/** Waits for `turn`, or fails busy at the deadline. */
async function waitUntil(turn: Promise<void>, deadline: number): Promise<void> {
  const came = await within(
    Math.max(0, deadline - Date.now()),
    turn.then(() => true),
    false,
  );
  if (!came) throw busy();
}
