import type IORedis from 'ioredis';

/**
 * Public catalogue reads cached in Redis. Every change bumps one version number that is
 * part of each key, so a change invalidates every cached page at once; old entries
 * simply expire.
 */
export class ReadCache {
  private readonly versionKey: string;

  constructor(
    private readonly redis: IORedis,
    private readonly namespace: string,
    private readonly ttlSeconds: number,
  ) {
    this.versionKey = `${namespace}:version`;
  }

  async get<T>(name: string, load: () => Promise<T>): Promise<T> {
    const version = (await this.redis.get(this.versionKey)) ?? '0';
    const key = `${this.namespace}:v${version}:${name}`;
    const hit = await this.redis.get(key);
    if (hit !== null) return JSON.parse(hit) as T;
    const value = await load();
    await this.redis.set(key, JSON.stringify(value), 'EX', this.ttlSeconds);
    return value;
  }

  async invalidate(): Promise<void> {
    await this.redis.incr(this.versionKey);
  }
}
