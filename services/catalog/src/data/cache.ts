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
    return JSON.parse(await this.text(name, async () => JSON.stringify(await load()))) as T;
  }

  /** The cached JSON text itself, for answers sent as they are stored. While Redis is away the store answers. */
  async text(name: string, load: () => Promise<string>): Promise<string> {
    let key: string | null = null;
    try {
      const version = (await this.redis.get(this.versionKey)) ?? '0';
      key = `${this.namespace}:v${version}:${name}`;
      const hit = await this.redis.get(key);
      if (hit !== null) return hit;
    } catch {
      key = null;
    }
    const value = await load();
    if (key) await this.redis.set(key, value, 'EX', this.ttlSeconds).catch(() => undefined);
    return value;
  }

  async invalidate(): Promise<void> {
    await this.redis.incr(this.versionKey);
  }
}
