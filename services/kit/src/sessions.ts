import type IORedis from 'ioredis';
import type { EventEnvelope } from './events';
import type { Logger } from './logger';
import { raiseTo } from './queue';

/**
 * Sessions that end when they should (issue 16): logout, a password reset and an account's
 * deletion end every session of that user, on every service and the queue board, at once.
 *
 * The choice: a session's token carries the millisecond it was signed (`signedAt`); auth records
 * "no session of this user signed before T is valid" (a session end) in Redis while it answers,
 * and announces it with user.sessions-ended, born in an insert into its outbox. Every service
 * applies the event to Redis again (a Redis that lost the key gets it back) and to a copy in its
 * own memory. A request with a token costs one Redis GET (about 0.1 ms on loopback); requests
 * without one cost nothing. While Redis is away the answer comes from that copy: every end this
 * process has learnt from the events still holds (only an end announced while Redis is away and
 * not yet consumed here is missed, for as long as both last). A key lives as long as a token
 * (JWT_TTL_SECONDS): a token signed before the end has expired by then anyway.
 */
export class SessionEnds {
  private readonly learnt = new Map<string, number>();

  constructor(
    private readonly redis: IORedis,
    private readonly ttlSeconds: number,
    private readonly logger?: Logger,
  ) {}

  private key(userId: string): string {
    return `raseed:sessions-end:${userId}`;
  }

  /** Records that the user's sessions signed before `at` are over; answers once Redis has it. */
  async end(userId: string, at: number): Promise<void> {
    this.remember(userId, at);
    // Only forward, whichever writer sets it last; it expires with the last token it ends.
    await raiseTo(this.redis, this.key(userId), at, this.ttlSeconds);
  }

  /** Applies a user.sessions-ended event: in memory always, in Redis when it is there. */
  async learn(event: EventEnvelope<'user.sessions-ended'>): Promise<void> {
    const { userId, at } = event.data;
    await this.end(userId, at).catch((err: unknown) => {
      this.logger?.warn({ err, userId }, 'a session end could not be written to Redis; kept in memory');
    });
  }

  /** Whether the session is still on: signed at or after its user's last session end. */
  async valid(user: { id: string; signedAt: number }): Promise<boolean> {
    let ended: number;
    try {
      ended = Number((await this.redis.get(this.key(user.id))) ?? 0);
    } catch {
      ended = this.learnt.get(user.id) ?? 0;
    }
    return user.signedAt >= ended;
  }

  private remember(userId: string, at: number): void {
    if ((this.learnt.get(userId) ?? 0) < at) this.learnt.set(userId, at);
    // Ends older than a token's life end nothing any more.
    if (this.learnt.size > 100_000) {
      const expired = Date.now() - this.ttlSeconds * 1000;
      for (const [id, end] of this.learnt) if (end < expired) this.learnt.delete(id);
    }
  }
}
