import { bumpVersion, readVersion, VersionedMemo } from '@raseed/kit';
import type IORedis from 'ioredis';

export interface CatalogueVersion {
  key: string;
  at: string;
}

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

  /** `keep` says whether a loaded value is worth caching (a page for a name that exists is). */
  async get<T>(name: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    let worth = true;
    const text = await this.text(
      name,
      async () => {
        const value = await load();
        worth = keep(value);
        return JSON.stringify(value);
      },
      () => worth,
    );
    return JSON.parse(text) as T;
  }

  /** The cached JSON text itself, for answers sent as they are stored. While Redis is away the store answers. */
  async text(name: string, load: () => Promise<string>, keep: () => boolean = () => true): Promise<string> {
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
    if (key && keep()) await this.redis.set(key, value, 'EX', this.ttlSeconds).catch(() => undefined);
    return value;
  }

  /**
   * The catalogue's version as it stands: where it is kept and its value ('0' before any change);
   * null while Redis is away. An answer read after it is at least as new as it.
   */
  async version(): Promise<CatalogueVersion | null> {
    const at = await readVersion(this.redis, this.versionKey);
    return at === null ? null : { key: this.versionKey, at };
  }

  async invalidate(): Promise<void> {
    await bumpVersion(this.redis, this.versionKey);
  }

  /** Values read from the store, kept in this process until the next change (see VersionedMemo). */
  memo<T>(): VersionedMemo<T> {
    return new VersionedMemo<T>(this.redis, this.versionKey);
  }
}
