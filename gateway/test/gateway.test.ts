import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createLogger, redisConnection } from '@raseed/kit';
import { uniqueName } from '@raseed/kit/testing';
import type IORedis from 'ioredis';
import supertest from 'supertest';
import { startTestAuth, PASSWORD, type TestAuth } from '../../services/auth/test/support';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';

/** The whole path from the browser's side: the gateway in front of the real auth service. */
let auth: TestAuth;
let redis: IORedis;
let gateway: http.Server;
let wallet: http.Server;
let seenByWallet: http.IncomingHttpHeaders[] = [];
let frontendDir: string;

const listen = (server: http.Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );

beforeAll(async () => {
  auth = await startTestAuth();
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  // A real HTTP server standing in for the wallet service, which a later issue builds.
  wallet = http.createServer((req, res) => {
    seenByWallet.push(req.headers);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ balance: 0 }));
  });
  const walletUrl = await listen(wallet);
  frontendDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raseed-frontend-'));
  fs.writeFileSync(
    path.join(frontendDir, 'index.html'),
    '<!doctype html><title>Raseed</title><div id="root"></div>',
  );
  const config = loadGatewayConfig({
    AUTH_URL: auth.service.url,
    WALLET_URL: walletUrl,
    // Nothing listens here: these services do not exist in this test.
    CATALOG_URL: 'http://127.0.0.1:9',
    ORDERS_URL: 'http://127.0.0.1:9',
    PAYMENTS_URL: 'http://127.0.0.1:9',
    FRONTEND_DIR: frontendDir,
    TRUST_PROXY: 'loopback',
  });
  // Counts left by an earlier run within the limit window would make the limits trip early.
  const counted = await redis.keys('raseed:rl:*198.51.100.*');
  if (counted.length) await redis.del(...counted);
  gateway = http.createServer(createGateway(config, redis, createLogger('gateway', 'silent')));
  await listen(gateway);
});

afterAll(async () => {
  await new Promise((r) => gateway.close(r));
  await new Promise((r) => wallet.close(r));
  await redis.quit();
  await auth.stop();
  fs.rmSync(frontendDir, { recursive: true, force: true });
});

const api = () => supertest(gateway);
// Each test is its own client address, so the per-address limits of one never touch another.
let clients = 0;
const client = () => `198.51.100.${++clients}`;
const xhr = { 'X-Requested-With': 'XMLHttpRequest' };
const account = () => {
  const username = uniqueName('gw');
  return { username, email: `${username}@example.com`, phone: '70000000', password: PASSWORD };
};

describe('gateway', () => {
  it('refuses a state-changing request without X-Requested-With, and stores nothing', async () => {
    const body = account();
    const res = await api().post('/api/signup').set('X-Forwarded-For', client()).send(body).expect(403);
    expect(res.body.error).toMatch(/X-Requested-With/);
    expect(await auth.db.collection('users').findOne({ email: body.email })).toBeNull();

    await api().post('/api/signup').set(xhr).set('X-Forwarded-For', client()).send(body).expect(201);
    expect(await auth.db.collection('users').findOne({ email: body.email })).not.toBeNull();
    // Reads need no header.
    await api().get('/api/users/count').expect(401);
  });

  it('answers 429 to the 11th rapid failed sign-in from one address, and not to another address', async () => {
    const ip = client();
    const attempt = (from: string) =>
      api()
        .post('/api/signin')
        .set(xhr)
        .set('X-Forwarded-For', from)
        .send({ email: 'x@example.com', password: 'wrong-pass' });
    for (let i = 1; i <= 10; i++) expect((await attempt(ip)).status).toBe(401);
    const blocked = await attempt(ip);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatch(/Too many attempts/);
    expect((await attempt(client())).status).toBe(401);
  });

  it('does not count successful sign-ins against the limit', async () => {
    const ip = client();
    const body = account();
    await api().post('/api/signup').set(xhr).set('X-Forwarded-For', ip).send(body).expect(201);
    for (let i = 0; i < 12; i++) {
      await api()
        .post('/api/signin')
        .set(xhr)
        .set('X-Forwarded-For', ip)
        .send({ email: body.email, password: PASSWORD })
        .expect(200);
    }
  });

  it('answers malformed JSON, an operator object and a 2 MB body with 4xx and stores nothing', async () => {
    const before = await auth.db.collection('users').countDocuments();
    const malformed = await api()
      .post('/api/signup')
      .set(xhr)
      .set('X-Forwarded-For', client())
      .set('Content-Type', 'application/json')
      .send('{"email": ');
    expect(malformed.status).toBe(400);
    const operator = await api()
      .post('/api/signup')
      .set(xhr)
      .set('X-Forwarded-For', client())
      .send({ ...account(), email: { $gt: '' } });
    expect(operator.status).toBe(400);
    const huge = await api()
      .post('/api/signup')
      .set(xhr)
      .set('X-Forwarded-For', client())
      .send({ ...account(), phone: 'x'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(await auth.db.collection('users').countDocuments()).toBe(before);
  });

  it('propagates the request id to the service, and makes one when the browser sends none', async () => {
    seenByWallet = [];
    const given = await api()
      .get('/api/balance?user_id=1')
      .set('X-Request-Id', 'req-given-12345')
      .expect(200);
    expect(given.headers['x-request-id']).toBe('req-given-12345');
    const made = await api().get('/api/balance?user_id=1').expect(200);
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seenByWallet.map((h) => h['x-request-id'])).toEqual([
      'req-given-12345',
      made.headers['x-request-id'],
    ]);
  });

  it('answers 502 with a clear error when a service is down', async () => {
    const res = await api().get('/api/categories').expect(502);
    expect(res.body.error).toBe('The service is unavailable. Please try again later.');
  });

  it('reports every service on /healthz', async () => {
    const res = await api().get('/healthz').expect(503);
    expect(res.body).toEqual({
      status: 'degraded',
      services: { auth: 'up', wallet: 'up', catalog: 'down', orders: 'down', payments: 'down' },
    });
  });

  it('serves the storefront with the index page for client-side routes, and 404 JSON for unknown API paths', async () => {
    const page = await api().get('/my-orders').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('<div id="root">');
    await api().get('/reset-password/some-token').expect(200);
    const missing = await api().get('/api/nothing-here').expect(404);
    expect(missing.body).toEqual({ error: 'Not found' });
  });
});
