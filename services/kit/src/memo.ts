import { randomUUID } from 'node:crypto';
import type IORedis from 'ioredis';

/**
 * Values a process read from its store, used again while a version number in Redis stays the
 * same. Every change that could alter them moves the version on (`bump`) after its write, so once
 * the change is complete no reader is answered what came before it; a value read across a bump is
 * not kept. One Redis read stands for the store reads it saves; while Redis is away the store
 * answers every time.
 */
export class VersionedMemo<T> {
  private version: string | null = null;
  private readonly values = new Map<string, { value: T; at: number }>();

  constructor(
    private readonly redis: IORedis,
    readonly versionKey: string,
    private readonly options: {
      /** How many values are kept; the least recently read goes first. */
      most?: number;
      /** A bound on what a change whose bump was lost (its writer died first) leaves behind. */
      ttlMs?: number;
    } = {},
  ) {}

  /** The version as it stands ('0' before any change), or null while Redis is away. */
  current(): Promise<string | null> {
    return readVersion(this.redis, this.versionKey);
  }

  /** `at`, when given, is the version the caller has just read (current), shared by several reads. */
  async get(name: string, load: () => Promise<T>, at?: string | null): Promise<T> {
    const version = at === undefined ? await this.current() : at;
    if (version === null) return load();
    if (version !== this.version) {
      this.values.clear();
      this.version = version;
    }
    const hit = this.values.get(name);
    if (hit && Date.now() - hit.at < (this.options.ttlMs ?? 60_000)) {
      this.keep(name, hit);
      return hit.value;
    }
    const value = await load();
    if (this.version === version) this.keep(name, { value, at: Date.now() });
    return value;
  }

  private keep(name: string, entry: { value: T; at: number }): void {
    keepRecent(this.values, name, entry, this.options.most ?? 5_000);
  }
}

/**
 * Sets `key` in `map` as its most recently used entry and forgets the least recently used one
 * past `most`: a map's order is the order its keys were set, so its first key is the oldest.
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, most: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > most) map.delete(map.keys().next().value!);
}

/** A version as it stands ('0' before any change), or null while Redis is away. */
export function readVersion(redis: IORedis, versionKey: string): Promise<string | null> {
  return redis.get(versionKey).then(
    (stored) => stored ?? '0',
    () => null,
  );
}

/**
 * Moves a version on after a change (see VersionedMemo): to a value never used before, so a
 * version lost with its Redis (a cache restarted empty) cannot come back to one that values
 * were kept under, as a counter starting again would.
 */
export async function bumpVersion(redis: IORedis, versionKey: string): Promise<void> {
  await redis.set(versionKey, randomUUID());
}
