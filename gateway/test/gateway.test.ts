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
import { bearer, newUser, startTestWallet, type TestWallet } from '../../services/wallet/test/support';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { listen } from './listen';

/** The whole path from the browser's side: the gateway in front of the real auth service. */
let auth: TestAuth;
let redis: IORedis;
let gateway: http.Server;
let realWallet: TestWallet;
let wallet: http.Server;
let seenByWallet: http.IncomingHttpHeaders[] = [];
let frontendDir: string;

beforeAll(async () => {
  auth = await startTestAuth();
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  // The real wallet, reached through a pass-through that notes the headers of what reaches it.
  realWallet = await startTestWallet();
  wallet = http.createServer((req, res) => {
    seenByWallet.push(req.headers);
    const upstream = http.request(
      new URL(req.url ?? '/', realWallet.service.url),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  const walletUrl = await listen(wallet);
  frontendDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raseed-frontend-'));
  fs.writeFileSync(
    path.join(frontendDir, 'index.html'),
    '<!doctype html><title>Raseed</title><div id="root"></div>',
  );
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    AUTH_URL: auth.service.url,
    WALLET_URL: walletUrl,
    // Nothing listens here: these services do not exist in this test.
    CATALOG_URL: 'http://127.0.0.1:9',
    ORDERS_URL: 'http://127.0.0.1:9',
    PAYMENTS_URL: 'http://127.0.0.1:9',
    FRONTEND_DIR: frontendDir,
    TRUST_PROXY: 'loopback',
    SIGNIN_ADDRESS_FAILURES: '20',
  });
  // Counts left by an earlier run within the limit window would make the limits trip early.
  const counted = await redis.keys('raseed:limit:*198.51.100.*');
  if (counted.length) await redis.del(...counted);
  gateway = http.createServer(createGateway(config, redis, createLogger('gateway', 'silent')));
  await listen(gateway);
});

afterAll(async () => {
  await new Promise((r) => gateway.close(r));
  await new Promise((r) => wallet.close(r));
  await realWallet.stop();
  await redis.quit();
  await auth.stop();
  fs.rmSync(frontendDir, { recursive: true, force: true });
});

const api = () => supertest(gateway);

/** A request whose target is sent exactly as written (an HTTP client library would tidy it first). */
function raw(method: string, target: string, headers: Record<string, string> = {}, body?: object) {
  const { port } = gateway.address() as AddressInfo;
  const data = body ? JSON.stringify(body) : '';
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: target,
        headers: { ...headers, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // Not JSON: kept as text.
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
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

  const signIn = (from: string, email: string, password = 'wrong-pass') =>
    api().post('/api/signin').set(xhr).set('X-Forwarded-For', from).send({ email, password });

  it('limits failed sign-ins per account, from any number of addresses; the right password waits too', async () => {
    const customer = account();
    const { email } = customer;
    await api().post('/api/signup').set(xhr).set('X-Forwarded-For', client()).send(customer).expect(201);
    for (let i = 1; i <= 10; i++) expect((await signIn(client(), email)).status).toBe(401);
    // The right password is held up too while the account's window lasts: guessing stops here.
    expect((await signIn(client(), email, PASSWORD)).status).toBe(429);
    const blocked = await signIn(client(), email);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({
      signInStatus: false,
      error: 'Too many attempts. Please try again in 15 minutes.',
    });
    // Another account is not held up by it.
    expect((await signIn(client(), account().email)).status).toBe(401);
  });

  it("does not lock a customer out of a shared address for other people's failures, and limits the address higher", async () => {
    const shared = client();
    const customer = account();
    await api().post('/api/signup').set(xhr).set('X-Forwarded-For', client()).send(customer).expect(201);
    // 12 other people mistype their own passwords on the same carrier address.
    for (let i = 1; i <= 12; i++) expect((await signIn(shared, account().email)).status).toBe(401);
    expect((await signIn(shared, customer.email, PASSWORD)).status).toBe(200);
    // The address's own limit (SIGNIN_ADDRESS_FAILURES, 20 here) counts failures only.
    for (let i = 13; i <= 20; i++) expect((await signIn(shared, account().email)).status).toBe(401);
    const blocked = await signIn(shared, customer.email, PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatch(/^Too many attempts/);
    expect((await signIn(client(), customer.email, PASSWORD)).status).toBe(200);
  });

  it.each([
    ['sign-ups', '/api/signup', () => account()],
    ['password-reset requests', '/api/reset-password-request', () => ({ email: account().email })],
    [
      'contact messages',
      '/api/contact',
      () => ({ email: account().email, subject: 'Hello', message: 'Hello there' }),
    ],
  ])(
    'answers 429 to the 11th of %s from one address, and not to another address',
    async (_what, path, body) => {
      const ip = client();
      for (let i = 1; i <= 10; i++) {
        const res = await api().post(path).set(xhr).set('X-Forwarded-For', ip).send(body());
        expect(res.status).toBeLessThan(429);
      }
      const blocked = await api().post(path).set(xhr).set('X-Forwarded-For', ip).send(body());
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toMatch(/^Too many attempts/);
      expect(
        (await api().post(path).set(xhr).set('X-Forwarded-For', client()).send(body())).status,
      ).toBeLessThan(429);
    },
  );

  it('refuses every spelling of a path that could be read two ways, so none skips the sign-in limit', async () => {
    const ip = client();
    const spellings = [
      '/api/signin\\',
      '/api\\signin',
      '/api/signin%2f',
      '/api%2Fsignin',
      '/api/signin%5c',
      '/api/./signin',
      '/api/x/../signin',
      '/api/%2e%2e/api/signin',
      '/api//signin',
      '//api/signin',
      '/api/signin%00',
    ];
    const wrongPassword = { email: account().email, password: 'wrong-pass' };
    for (const spelling of spellings) {
      const res = await raw('POST', spelling, { ...xhr, 'X-Forwarded-For': ip }, wrongPassword);
      expect({ spelling, ...res }).toEqual({ spelling, status: 400, body: { error: 'Bad request path' } });
    }
    // A case change or a longer name is no service's path: 404, never proxied.
    for (const spelling of ['/API/signin', '/api/SIGNIN', '/api/signin;x', '/api/signinx']) {
      const res = await raw('POST', spelling, { ...xhr, 'X-Forwarded-For': ip }, wrongPassword);
      expect({ spelling, status: res.status }).toEqual({ spelling, status: 404 });
    }
    // None of them reached auth: the account has all its tries left.
    for (let i = 1; i <= 10; i++) expect((await signIn(ip, wrongPassword.email)).status).toBe(401);
  });

  it('refuses an absolute-form request target', async () => {
    const { port } = gateway.address() as AddressInfo;
    expect((await raw('GET', `http://127.0.0.1:${port}/api/users/count`)).status).toBe(400);
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
    const customer = await newUser();
    seenByWallet = [];
    const given = await api()
      .get('/api/balance')
      .set(bearer(customer))
      .set('X-Request-Id', 'req-given-12345')
      .expect(200);
    expect(given.headers['x-request-id']).toBe('req-given-12345');
    expect(given.body).toEqual({ balance: 0 });
    const made = await api().get('/api/balance').set(bearer(customer)).expect(200);
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
      instances: { auth: '1/1', wallet: '1/1', catalog: '0/1', orders: '0/1', payments: '0/1' },
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
