import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createLogger, redisConnection } from '@raseed/kit';
import type IORedis from 'ioredis';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { rawGet } from './raw-get';

/**
 * The built storefront as a phone's browser fetches it from the gateway: a stand-in build
 * (an index page and a hashed script, each with the .br and .gz copies the build writes beside
 * it, and the storefront's real robots.txt), read byte for byte as it comes off the wire.
 */
let redis: IORedis;
let gateway: http.Server;
let frontendDir: string;

const SCRIPT = '/assets/index-Bx7kQ2pA.js';
const INDEX = '<!doctype html><title>Raseed</title><div id="root"></div>';
const script = Buffer.from(
  Array.from(
    { length: 200 },
    (_, i) => `export const product${i} = { id: ${i}, name: 'Gift card ${i}' };`,
  ).join('\n'),
);

beforeAll(async () => {
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  frontendDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raseed-frontend-'));
  fs.mkdirSync(path.join(frontendDir, 'assets'));
  fs.writeFileSync(path.join(frontendDir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(frontendDir, 'index.html.br'), zlib.brotliCompressSync(INDEX));
  fs.writeFileSync(path.join(frontendDir, 'index.html.gz'), zlib.gzipSync(INDEX, { level: 9 }));
  fs.copyFileSync(
    path.join(__dirname, '../../frontend/public/robots.txt'),
    path.join(frontendDir, 'robots.txt'),
  );
  // As frontend/vite.config.ts makes them: brotli at its best quality, gzip at level 9.
  const file = path.join(frontendDir, SCRIPT);
  fs.writeFileSync(file, script);
  fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(script));
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(script, { level: 9 }));
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    // Nothing listens here: no service is asked for a file of the storefront.
    AUTH_URL: 'http://127.0.0.1:9',
    WALLET_URL: 'http://127.0.0.1:9',
    CATALOG_URL: 'http://127.0.0.1:9',
    ORDERS_URL: 'http://127.0.0.1:9',
    PAYMENTS_URL: 'http://127.0.0.1:9',
    FRONTEND_DIR: frontendDir,
  });
  gateway = http.createServer(createGateway(config, redis, createLogger('gateway', 'silent')));
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((r) => gateway.close(r));
  await redis.quit();
  fs.rmSync(frontendDir, { recursive: true, force: true });
});

const get = (target: string, headers: Record<string, string> = {}) => rawGet(gateway, target, headers);

const FOR_GOOD = 'public, max-age=31536000, immutable';
// The original's type, whichever copy is sent (a charset is named in any case).
const JAVASCRIPT = /^text\/javascript; charset=utf-8$/i;

describe('the storefront', () => {
  it('sends a hashed script as its brotli copy when the browser takes brotli, cached for good', async () => {
    const res = await get(SCRIPT, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(JAVASCRIPT);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toBe(FOR_GOOD);
    expect(res.body.length).toBeLessThan(script.length / 3);
    expect(zlib.brotliDecompressSync(res.body).equals(script)).toBe(true);
  });

  it('sends the gzip copy to a browser that takes gzip only', async () => {
    const res = await get(SCRIPT, { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['content-type']).toMatch(JAVASCRIPT);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toBe(FOR_GOOD);
    expect(zlib.gunzipSync(res.body).equals(script)).toBe(true);
  });

  it('sends the file as it is to a browser that takes no compression', async () => {
    for (const headers of [{}, { 'accept-encoding': 'identity' }] as Record<string, string>[]) {
      const res = await get(SCRIPT, headers);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['content-type']).toMatch(JAVASCRIPT);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers['cache-control']).toBe(FOR_GOOD);
      expect(res.body.equals(script)).toBe(true);
    }
  });

  it('has the index page revalidated on every visit, by its ETag', async () => {
    const res = await get('/index.html');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body.toString()).toBe(INDEX);
    const etag = res.headers.etag ?? '';
    expect(etag).not.toBe('');
    expect((await get('/index.html', { 'if-none-match': etag })).status).toBe(304);
  });

  it('serves robots.txt, keeping crawlers out of the API and the back office', async () => {
    const res = await get('/robots.txt', { 'accept-encoding': 'gzip, br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.headers['cache-control']).toBe('no-cache');
    const rules = res.body.toString();
    expect(rules).toMatch(/^User-agent: \*$/m);
    expect(rules).toMatch(/^Disallow: \/api\/$/m);
    expect(rules).toMatch(/^Disallow: \/admin$/m);
  });

  it('answers a client-side route with the index page, revalidated, with the security headers', async () => {
    for (const route of ['/', '/my-orders', '/admin/orders', '/category/steam']) {
      const res = await get(route, { 'accept-encoding': 'gzip, br' });
      expect({ route, status: res.status }).toEqual({ route, status: 200 });
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(zlib.brotliDecompressSync(res.body).toString()).toBe(INDEX);
    }
  });

  it('answers a client-side route with the gzip copy, or the page as it is, to a browser that takes no brotli', async () => {
    const zipped = await get('/signin', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(zipped.body).toString()).toBe(INDEX);
    const plain = await get('/signin');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^text\/html/);
    expect(plain.body.toString()).toBe(INDEX);
  });
});
