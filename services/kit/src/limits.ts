import type IORedis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { HttpError } from './errors';

/**
 * How many times one key (an address, an account, an e-mail) may do something within a
 * window. Counted in Redis, so every instance shares the count; while Redis is away each
 * process counts on its own (rate-limiter-flexible's insurance limiter) instead of letting
 * everything through, and Redis takes over again by itself when it is back.
 */
export class Limit {
  private readonly limiter: RateLimiterRedis;

  constructor(
    redis: IORedis,
    name: string,
    readonly tries: number,
    readonly windowSeconds: number,
  ) {
    const keyPrefix = `raseed:limit:${name}`;
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points: tries,
      duration: windowSeconds,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points: tries, duration: windowSeconds }),
    });
  }

  /** Whether the key has used all its tries in the current window (counts none). */
  async spent(key: string): Promise<boolean> {
    const counted = await this.limiter.get(key);
    return counted !== null && counted.consumedPoints >= this.tries;
  }

  /** Counts one try; answers whether it went over the limit. */
  async count(key: string): Promise<boolean> {
    try {
      await this.limiter.consume(key);
      return false;
    } catch (err) {
      if (err instanceof RateLimiterRes) return true;
      throw err;
    }
  }

  /** Forgets the key's tries (a successful sign-in clears its account's failures). */
  async clear(key: string): Promise<void> {
    await this.limiter.delete(key);
  }

  /** The 429 a caller over the limit gets. */
  refusal(fields?: Record<string, unknown>): HttpError {
    return tooManyAttempts(this.windowSeconds, fields);
  }
}

export const tooManyAttempts = (windowSeconds: number, fields?: Record<string, unknown>) =>
  new HttpError(
    429,
    `Too many attempts. Please try again in ${Math.ceil(windowSeconds / 60)} minutes.`,
    fields,
  );
