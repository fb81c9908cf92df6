import type { Readable } from 'node:stream';
import { Client } from 'minio';
import type { BaseConfig } from './config';

type StoreAddress = Pick<BaseConfig, 'S3_ENDPOINT' | 'S3_ACCESS_KEY' | 'S3_SECRET_KEY'>;

/** A client of the object store at the configured endpoint. */
export function objectClient(config: StoreAddress): Client {
  const url = new URL(config.S3_ENDPOINT);
  return new Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    useSSL: url.protocol === 'https:',
    accessKey: config.S3_ACCESS_KEY,
    secretKey: config.S3_SECRET_KEY,
  });
}

/** The object store (MinIO locally, any S3 under compose). Objects are private unless a service publishes them. */
export class ObjectStore {
  private readonly client: Client;

  constructor(
    config: StoreAddress,
    readonly bucket: string,
  ) {
    this.client = objectClient(config);
  }

  /** Creates the bucket when it is missing (start-up; safe to repeat and to race). */
  async ensureBucket(): Promise<void> {
    if (await this.client.bucketExists(this.bucket)) return;
    await this.client.makeBucket(this.bucket).catch(async (err: unknown) => {
      if (!(await this.client.bucketExists(this.bucket))) throw err;
    });
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.putObject(this.bucket, key, body, body.length, { 'Content-Type': contentType });
  }

  /** The object's bytes as a stream with its type and size, or null when there is no such object. */
  async get(key: string): Promise<{ body: Readable; contentType: string; size: number } | null> {
    const stat = await this.stat(key);
    if (!stat) return null;
    return {
      body: await this.client.getObject(this.bucket, key),
      contentType: String(stat.metaData['content-type'] ?? 'application/octet-stream'),
      size: stat.size,
    };
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  private async stat(key: string) {
    try {
      return await this.client.statObject(this.bucket, key);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'NotFound' || code === 'NoSuchKey') return null;
      throw err;
    }
  }

  /** The keys under a prefix. */
  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const item of this.client.listObjectsV2(this.bucket, prefix, true)) {
      if (item.name) keys.push(item.name as string);
    }
    return keys;
  }

  async remove(key: string): Promise<void> {
    await this.client.removeObject(this.bucket, key);
  }

  /** Deletes every object, then the bucket itself (a test's bucket, once its run is over). */
  async drop(): Promise<void> {
    const keys = await this.list('');
    if (keys.length) await this.client.removeObjects(this.bucket, keys);
    await this.client.removeBucket(this.bucket);
  }

  async ping(): Promise<boolean> {
    return this.client.bucketExists(this.bucket);
  }
}
