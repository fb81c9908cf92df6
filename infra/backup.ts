/**
 * npm run backup [-- DIR] / npm run restore -- DIR: the local store's systems of record into a
 * directory and back (OPERATIONS.md, Backup and restore).
 *
 * - The document store: FerretDB keeps every database in PostgreSQL, so pg_dump of its
 *   database `ferretdb` (custom format) and pg_restore --clean. Under compose, mongodump and
 *   mongorestore do the same against the mongo service.
 * - The object store (receipts, product images): every object of the bucket, as files.
 * - Redis (queued jobs, session ends, limits): every key with its lifetime (DUMP and RESTORE).
 *
 * Kafka is not backed up: it is not a system of record (OPERATIONS.md says why).
 * Restore into a stopped store (no service running), then start it. The restore restarts
 * FerretDB, which caches what it knows of its tables.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { Client as Minio } from 'minio';
import { PG, pgArgs, pgTool } from './postgres';

const DATA = process.env.RASEED_DATA ?? path.join(os.homedir(), '.local/share/raseed');
const INFRA_SH = path.resolve(__dirname, 'infra.sh');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const S3 = new URL(process.env.S3_ENDPOINT ?? 'http://127.0.0.1:9000');
const BUCKET = process.env.S3_BUCKET ?? 'raseed';

const minio = () =>
  new Minio({
    endPoint: S3.hostname,
    port: Number(S3.port || 80),
    useSSL: S3.protocol === 'https:',
    accessKey: process.env.S3_ACCESS_KEY ?? 'raseed',
    secretKey: process.env.S3_SECRET_KEY ?? 'raseed-secret',
  });

async function timed<T>(what: string, step: () => Promise<T>): Promise<T> {
  const started = performance.now();
  process.stdout.write(`  ${what}… `);
  const result = await step();
  console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

async function backup(dir: string): Promise<void> {
  fs.mkdirSync(path.join(dir, 'objects'), { recursive: true });
  console.log(`backing up to ${dir}`);
  await timed('document store (pg_dump of FerretDB)', async () => {
    execFileSync(pgTool('pg_dump'), [...pgArgs, '-Fc', '-f', path.join(dir, 'store.pgdump'), PG.database], {
      stdio: 'inherit',
    });
  });
  const objects = await timed(`object store (bucket ${BUCKET})`, async () => {
    const client = minio();
    let count = 0;
    for await (const item of client.listObjectsV2(BUCKET, '', true) as AsyncIterable<{ name?: string }>) {
      if (!item.name) continue;
      const file = path.join(dir, 'objects', item.name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      await client.fGetObject(BUCKET, item.name, file);
      count++;
    }
    return count;
  });
  const keys = await timed('Redis (every key with its lifetime)', async () => {
    const redis = new IORedis(REDIS_URL);
    const out = fs.createWriteStream(path.join(dir, 'redis.ndjson'));
    let count = 0;
    try {
      for await (const batch of redis.scanStream({ count: 500 }) as AsyncIterable<string[]>) {
        for (const key of batch) {
          const [value, ttl] = await Promise.all([redis.dumpBuffer(key), redis.pttl(key)]);
          if (!value) continue; // gone meanwhile
          out.write(`${JSON.stringify({ key, ttl: ttl > 0 ? ttl : 0, value: value.toString('base64') })}\n`);
          count++;
        }
      }
    } finally {
      await new Promise((resolve) => out.end(resolve));
      redis.disconnect();
    }
    return count;
  });
  fs.writeFileSync(
    path.join(dir, 'manifest.json'),
    JSON.stringify({ at: new Date().toISOString(), objects, redisKeys: keys, bucket: BUCKET }, null, 2),
  );
  console.log(`done: the store's database, ${objects} objects and ${keys} Redis keys in ${dir}`);
}

async function restore(dir: string): Promise<void> {
  if (!fs.existsSync(path.join(dir, 'manifest.json')))
    throw new Error(`${dir} holds no backup (no manifest.json)`);
  console.log(`restoring from ${dir}`);
  await timed('document store (pg_restore --clean into FerretDB)', async () => {
    const run = spawnSync(
      pgTool('pg_restore'),
      [...pgArgs, '--clean', '--if-exists', '--no-owner', '-d', PG.database, path.join(dir, 'store.pgdump')],
      { stdio: 'inherit' },
    );
    if (run.status !== 0) throw new Error(`pg_restore exited with ${run.status}`);
  });
  // FerretDB keeps what it knows of its tables in memory: restarted, it reads the restored ones.
  await timed('FerretDB restarted on the restored tables', async () => {
    execFileSync('bash', [INFRA_SH, 'down', 'mongo'], { stdio: 'ignore' });
    execFileSync('bash', [INFRA_SH, 'up', 'mongo'], { stdio: 'ignore' });
  });
  await timed(`object store (bucket ${BUCKET})`, async () => {
    const client = minio();
    if (!(await client.bucketExists(BUCKET))) await client.makeBucket(BUCKET);
    const root = path.join(dir, 'objects');
    const files = fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]) : [];
    for (const name of files) {
      const file = path.join(root, name);
      if (fs.statSync(file).isFile()) await client.fPutObject(BUCKET, name.split(path.sep).join('/'), file);
    }
  });
  await timed('Redis', async () => {
    const redis = new IORedis(REDIS_URL);
    try {
      const lines = fs.readFileSync(path.join(dir, 'redis.ndjson'), 'utf8').split('\n').filter(Boolean);
      for (const line of lines) {
        const { key, ttl, value } = JSON.parse(line) as { key: string; ttl: number; value: string };
        await redis.restore(key, ttl, Buffer.from(value, 'base64'), 'REPLACE');
      }
    } finally {
      redis.disconnect();
    }
  });
  console.log('done: start the store (npm start) and run npm run reconcile');
}

async function main(): Promise<void> {
  const [command, dir] = process.argv.slice(2);
  if (command === 'backup') {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    return backup(path.resolve(dir ?? path.join(DATA, 'backups', stamp)));
  }
  if (command === 'restore' && dir) return restore(path.resolve(dir));
  throw new Error('usage: npm run backup [-- DIR]  |  npm run restore -- DIR');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
