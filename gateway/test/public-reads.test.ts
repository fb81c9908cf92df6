import http from 'node:http';
import zlib from 'node:zlib';
import { createLogger, Metrics, redisConnection } from '@raseed/kit';
import { publishEvents } from '@raseed/kit/testing';
import type IORedis from 'ioredis';
import { startTestCatalog, type TestCatalog } from '../../services/catalog/test/support';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { rawGet, type RawAnswer } from './raw-get';
import { listen } from './listen';

/**
 * Visitors' catalogue reads through the gateway's short-lived cache, in front of the real
 * catalog service. A pass-through between them notes every request that reaches the service
 * and the bytes it answered; it can also hold a request a while, or add a header to the answer.
 */
const TTL_MS = 1500;

interface Visit {
  url: string;
  headers: http.IncomingHttpHeaders;
  body?: Buffer;
}

let catalog: TestCatalog;
let redis: IORedis;
let relay: http.Server;
const seen: Visit[] = [];
let holdMs = 0;
let addedHeaders: Record<string, string> = {};
let metrics: Metrics;
/** The gateway with the cache (PUBLIC_CACHE_MS = TTL_MS), and one with it off (0). */
let gateway: http.Server;
let uncached: http.Server;
let admin: string;
let customer: { id: string; token: string };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  catalog = await startTestCatalog();
  admin = catalog.token('admin').token;
  customer = catalog.token('user');
  expect((await catalog.sync(admin)).status).toBe(200);
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  relay = http.createServer((req, res) => {
    const visit: Visit = { url: req.url ?? '/', headers: req.headers };
    seen.push(visit);
    const extra = addedHeaders;
    setTimeout(() => {
      const upstream = http.request(
        new URL(visit.url, catalog.service.url),
        { method: req.method, headers: req.headers },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            visit.body = Buffer.concat(chunks);
            res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...extra });
            res.end(visit.body);
          });
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    }, holdMs);
  });
  const catalogUrl = await listen(relay);
  const env = {
    NODE_ENV: 'test',
    CATALOG_URL: catalogUrl,
    // Nothing listens here: no other service is asked in this test.
    AUTH_URL: 'http://127.0.0.1:9',
    WALLET_URL: 'http://127.0.0.1:9',
    ORDERS_URL: 'http://127.0.0.1:9',
    PAYMENTS_URL: 'http://127.0.0.1:9',
  };
  const logger = createLogger('gateway', 'silent');
  metrics = new Metrics('gateway');
  gateway = http.createServer(
    createGateway(loadGatewayConfig({ ...env, PUBLIC_CACHE_MS: String(TTL_MS) }), redis, logger, metrics),
  );
  uncached = http.createServer(
    createGateway(loadGatewayConfig({ ...env, PUBLIC_CACHE_MS: '0' }), redis, logger),
  );
  await Promise.all([listen(gateway), listen(uncached)]);
});

afterAll(async () => {
  await new Promise((r) => gateway.close(r));
  await new Promise((r) => uncached.close(r));
  await new Promise((r) => relay.close(r));
  await redis.quit();
  await catalog.stop();
});

const get = (target: string, headers: Record<string, string> = {}, server = gateway) =>
  rawGet(server, target, headers);

/** The requests for a target that reached the catalog service. */
const reached = (target: string) => seen.filter((visit) => visit.url === target);
const pagePath = (name: string) => `/api/catalog/category/${encodeURIComponent(name)}`;
const BROWSER = { 'accept-encoding': 'gzip, deflate, br, zstd' };

type Page = { products: { id: string; name: string; price: number }[] };
const pageOf = (answer: RawAnswer) => JSON.parse(answer.body.toString()) as Page;

describe("the gateway's cache of visitors' catalogue reads", () => {
  it('fetches a category page once for many visitors inside the TTL, and again after it', async () => {
    const target = pagePath('PUBG Mobile');
    // The service takes its time: every request of the burst misses, and they share one fetch.
    holdMs = 200;
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(target)));
    holdMs = 0;
    for (let i = 0; i < 10; i++) answers.push(await get(target));
    expect(reached(target)).toHaveLength(1);
    const fetched = reached(target)[0]!.body!;
    expect(pageOf({ status: 200, headers: {}, body: fetched }).products.length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.body.equals(fetched)).toBe(true);
    }

    await pause(TTL_MS + 100);
    expect((await get(target)).status).toBe(200);
    expect(reached(target)).toHaveLength(2);
  });

  it("shows an admin's price change to visitors within the TTL", async () => {
    const target = pagePath('Free Fire');
    const before = pageOf(await get(target)).products.find((p) => p.price > 0)!;
    await catalog
      .http()
      .put('/api/edit-custom-products')
      .set('Authorization', admin)
      .field('product_name', before.name)
      .field('percentage', '50')
      .expect(200);
    const changedAt = Date.now();
    let price = before.price;
    while (price === before.price && Date.now() - changedAt < TTL_MS + 2_000) {
      price = pageOf(await get(target)).products.find((p) => p.id === before.id)!.price;
      if (price === before.price) await pause(50);
    }
    expect(price).toBeGreaterThan(before.price);
    expect(Date.now() - changedAt).toBeLessThan(TTL_MS + 500);
  });

  it('answers 304 without a body when the ETag is current, with the headers of every answer', async () => {
    const target = pagePath('Yalla Ludo');
    const first = await get(target, { ...BROWSER, 'x-request-id': 'req-cached-read-1' });
    expect(first.status).toBe(200);
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers['cache-control']).toBe('no-cache');
    expect(first.headers.vary).toMatch(/accept-encoding/i);

    for (const given of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await get(target, {
        ...BROWSER,
        'if-none-match': given,
        'x-request-id': 'req-cached-read-2',
      });
      expect({ given, status: again.status, length: again.body.length }).toEqual({
        given,
        status: 304,
        length: 0,
      });
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['x-request-id']).toBe('req-cached-read-2');
      expect(again.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(again.headers['x-frame-options']).toBe('DENY');
    }
    const changed = await get(target, { ...BROWSER, 'if-none-match': '"something-else"' });
    expect(changed.status).toBe(200);
    expect(changed.body.length).toBeGreaterThan(0);
    expect(first.headers['x-request-id']).toBe('req-cached-read-1');
    expect(first.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    // The service saw one request, carrying the id of the request that fetched it.
    expect(reached(target).map((visit) => visit.headers['x-request-id'])).toEqual(['req-cached-read-1']);

    // Cached answers are timed under their routing prefix and counted as hits.
    const timings = await metrics.registry.getSingleMetricAsString('http_request_duration_seconds');
    expect(timings).toMatch(
      /http_request_duration_seconds_count\{[^}]*route="\/api\/catalog",status="304"[^}]*\} [1-9]/,
    );
    const answers = await metrics.registry.getSingleMetricAsString('gateway_public_cache_answers');
    expect(answers).toMatch(/result="hit"[^}]*\} [1-9]/);
  });

  it('sends brotli, gzip or the body as it is, as the client takes them, each the service’s bytes', async () => {
    const target = '/api/catalog/sections';
    const cases: [Record<string, string>, string | undefined, (body: Buffer) => Buffer][] = [
      [BROWSER, 'br', zlib.brotliDecompressSync],
      [{ 'accept-encoding': 'gzip, br;q=0' }, 'gzip', zlib.gunzipSync],
      [{ 'accept-encoding': 'gzip' }, 'gzip', zlib.gunzipSync],
      [{ 'accept-encoding': '*' }, 'br', zlib.brotliDecompressSync],
      [{ 'accept-encoding': 'identity' }, undefined, (body) => body],
      [{}, undefined, (body) => body],
    ];
    const tags = new Set<string>();
    for (const [headers, coding, decode] of cases) {
      const answer = await get(target, headers);
      expect({ headers, status: answer.status, coding: answer.headers['content-encoding'] }).toEqual({
        headers,
        status: 200,
        coding,
      });
      expect(answer.headers.vary).toMatch(/accept-encoding/i);
      expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
      expect(decode(answer.body).equals(reached(target)[0]!.body!)).toBe(true);
      tags.add(answer.headers.etag!);
    }
    expect(reached(target)).toHaveLength(1);
    expect(reached(target)[0]!.body!.length).toBeGreaterThan(1024);
    // One tag per coding: each is a representation of its own.
    expect(tags.size).toBe(3);
    // A small answer is not worth compressing.
    const small = await get('/api/categories', BROWSER);
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body.equals(reached('/api/categories')[0]!.body!)).toBe(true);
  });

  it('never answers a signed-in customer from the cache, nor keeps their answer: their prices carry their discount', async () => {
    const target = pagePath('Steam');
    const token = customer.token.slice('Bearer '.length);
    await publishEvents('user.discount-changed', {
      key: customer.id,
      data: { userId: customer.id, percentage: 20, setAt: new Date().toISOString() },
    });
    const visitorPrice = async () =>
      (await catalog.http().get(target).expect(200)).body.products[0].price as number;
    const customerPrice = async () =>
      (await catalog.http().get(target).set('Authorization', customer.token).expect(200)).body.products[0]
        .price as number;
    const deadline = Date.now() + 20_000;
    while ((await customerPrice()) === (await visitorPrice()) && Date.now() < deadline) await pause(200);
    const [visitors, theirs] = [await visitorPrice(), await customerPrice()];
    expect(theirs).toBeLessThan(visitors);
    const firstPrice = (answer: RawAnswer) => pageOf(answer).products[0]!.price;

    // Signed in, by the header or the session cookie: each request goes to the service.
    const signedIn: Record<string, string>[] = [
      { authorization: customer.token },
      { authorization: customer.token },
      { cookie: `token=${token}` },
      { cookie: `theme=dark; token=${token}` },
    ];
    for (const headers of signedIn) expect(firstPrice(await get(target, headers))).toBe(theirs);
    expect(reached(target)).toHaveLength(4);
    // None of them was kept: the first visitor's read goes to the service too, and is kept.
    const visitor = await get(target, BROWSER);
    expect(firstPrice({ ...visitor, body: zlib.brotliDecompressSync(visitor.body) })).toBe(visitors);
    expect(firstPrice(await get(target, { cookie: 'theme=dark' }))).toBe(visitors);
    expect(reached(target)).toHaveLength(5);
    // The visitor's page is kept now; a customer still gets theirs, even sending the visitor's tag.
    const withTag = await get(target, {
      authorization: customer.token,
      'if-none-match': visitor.headers.etag!,
    });
    expect(withTag.status).toBe(200);
    expect(firstPrice(withTag)).toBe(theirs);
    expect(firstPrice(await get(target, { cookie: `token=${token}` }))).toBe(theirs);
    expect(reached(target)).toHaveLength(7);
    expect(reached(target).map((visit) => !!(visit.headers.authorization || visit.headers.cookie))).toEqual([
      true,
      true,
      true,
      true,
      false,
      true,
      true,
    ]);
  });

  it('keeps no answer other than a 200, and lets each waiting request ask for itself', async () => {
    const target = pagePath('x'.repeat(201));
    holdMs = 200;
    const answers = await Promise.all(Array.from({ length: 3 }, () => get(target)));
    holdMs = 0;
    answers.push(await get(target));
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body.toString())).toEqual({ error: 'Category not found' });
    }
    expect(reached(target)).toHaveLength(4);
  });

  it.each(['no-store', 'private', 'no-cache'])('keeps no answer the service marks %s', async (control) => {
    const target = `/api/custom-categories?marked=${control}`;
    addedHeaders = { 'cache-control': control };
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await get(target, BROWSER);
        expect(answer.status).toBe(200);
        expect(answer.headers['cache-control']).toBe(control);
        expect(answer.headers['content-encoding']).toBeUndefined();
        expect(answer.body.equals(reached(target)[i]!.body!)).toBe(true);
      }
    } finally {
      addedHeaders = {};
    }
    expect(reached(target)).toHaveLength(3);
  });

  it('sends every read to the service when PUBLIC_CACHE_MS is 0', async () => {
    const target = pagePath('Tarneeb');
    for (let i = 0; i < 3; i++) {
      const answer = await get(target, BROWSER, uncached);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBeUndefined();
      // The service's own (weak) tag, not the cache's.
      expect(answer.headers.etag).toMatch(/^W\//);
    }
    expect(reached(target)).toHaveLength(3);
  });
});
