import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createLogger, createQueue, QUEUE_NAMES, redisConnection, signSession, type Role } from '@raseed/kit';
import type { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import supertest from 'supertest';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';

/** The operators' queue board, from the browser's side: the gateway alone, on a queue prefix of its own. */
const JWT_SECRET = `queue-board-test-secret-${randomUUID()}`;
const QUEUE_PREFIX = `raseed-test-board-${randomUUID().slice(0, 8)}`;
const ALL_QUEUES = Object.values(QUEUE_NAMES);

let redis: IORedis;
let gateway: http.Server;
let frontendDir: string;
let placements: Queue<{ orderId: string }>;

const session = (role: Role) =>
  signSession(
    {
      id: randomUUID(),
      username: role,
      email: `${role}@example.com`,
      role,
      phone: '70000000',
      percentage: null,
    },
    JWT_SECRET,
    600,
  );
const admin = session('admin');
const customer = session('user');

beforeAll(async () => {
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  // An index page, so a path the board did not answer would come back as the storefront.
  frontendDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raseed-frontend-'));
  fs.writeFileSync(path.join(frontendDir, 'index.html'), '<!doctype html><div id="root"></div>');
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    JWT_SECRET,
    QUEUE_PREFIX,
    FRONTEND_DIR: frontendDir,
    // No service is needed: the board reads Redis only.
    AUTH_URL: 'http://127.0.0.1:9',
    WALLET_URL: 'http://127.0.0.1:9',
    CATALOG_URL: 'http://127.0.0.1:9',
    ORDERS_URL: 'http://127.0.0.1:9',
    PAYMENTS_URL: 'http://127.0.0.1:9',
  });
  placements = createQueue(QUEUE_NAMES.orderPlacement, redis, createLogger('test', 'silent'), QUEUE_PREFIX);
  gateway = http.createServer(createGateway(config, redis, createLogger('gateway', 'silent')));
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => gateway.close(resolve));
  await placements.close();
  const keys = await redis.keys(`${QUEUE_PREFIX}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  fs.rmSync(frontendDir, { recursive: true, force: true });
});

const api = () => supertest(`http://127.0.0.1:${(gateway.address() as AddressInfo).port}`);
const asAdmin = { Authorization: `Bearer ${admin}` };
const listQueues = (query = '') =>
  api().get(`/admin/queues/api/queues${query}`).set(asAdmin).set('Accept', 'application/json');

describe('the queue board for an admin', () => {
  it('serves the board page, from the session cookie', async () => {
    const page = await api()
      .get('/admin/queues')
      .set('Cookie', `token=${admin}`)
      .set('Accept', 'text/html')
      .expect(200)
      .expect('content-type', /html/);
    expect(page.text).toContain('<base href="/admin/queues/" />');
    expect(page.headers['x-powered-by']).toBeUndefined();
    // The gateway's CSP holds here too: every script the page runs is a same-origin file.
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self';/);
    const inlineScripts = [...page.text.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)].map(
      ([, attrs]) => attrs,
    );
    expect(inlineScripts).toEqual([' id="__UI_CONFIG__" type="application/json"']);
  });

  it('lists the four queues of the store in its API', async () => {
    const res = await listQueues().expect(200);
    const names = (res.body.queues as { name: string }[]).map((q) => q.name);
    expect(names.sort()).toEqual([...ALL_QUEUES].sort());
  });

  it('shows a job added to a queue under the configured prefix', async () => {
    const orderId = `order-${randomUUID()}`;
    await placements.add('place', { orderId }, { jobId: orderId });
    const res = await listQueues(
      `?activeQueue=${QUEUE_NAMES.orderPlacement}&status=latest&page=1&jobsPerPage=10`,
    ).expect(200);
    const queue = (
      res.body.queues as { name: string; counts: Record<string, number>; jobs: object[] }[]
    ).find((q) => q.name === QUEUE_NAMES.orderPlacement);
    expect(queue?.counts.waiting).toBe(1);
    expect(queue?.jobs).toEqual([expect.objectContaining({ id: orderId, data: { orderId } })]);
  });

  it('loads every script and stylesheet of the page', async () => {
    const page = await api().get('/admin/queues/').set(asAdmin).set('Accept', 'text/html').expect(200);
    const assets = [...page.text.matchAll(/(?:src|href)="(static\/[^"]+)"/g)].map(
      ([, asset = '']) => new URL(asset, 'http://gateway/admin/queues/').pathname,
    );
    expect(assets.filter((a) => a.endsWith('.js')).length).toBeGreaterThan(0);
    expect(assets.filter((a) => a.endsWith('.css')).length).toBeGreaterThan(0);
    for (const asset of assets) await api().get(asset).set(asAdmin).expect(200);
  });

  it('pauses a queue from the board, but not for a page of another site', async () => {
    const pause = `/admin/queues/api/queues/${QUEUE_NAMES.orderStatus}/pause`;
    const refused = await api().put(pause).set(asAdmin).set('Sec-Fetch-Site', 'cross-site').expect(403);
    expect(refused.body.error).toMatch(/own pages/);
    const status = createQueue(QUEUE_NAMES.orderStatus, redis, createLogger('test', 'silent'), QUEUE_PREFIX);
    try {
      expect(await status.isPaused()).toBe(false);
      await api().put(pause).set(asAdmin).set('Sec-Fetch-Site', 'same-origin').expect(200);
      expect(await status.isPaused()).toBe(true);
    } finally {
      await status.close();
    }
  });

  it('answers an unknown path under the board with a 404, not the storefront', async () => {
    const res = await api().get('/admin/queues/api/nothing-here').set(asAdmin).expect(404);
    expect(res.body).toEqual({ error: 'Not found' });
  });
});

describe('the queue board for anyone else', () => {
  it('sends a visitor to the sign-in page, and answers the API with 401', async () => {
    const page = await api().get('/admin/queues').set('Accept', 'text/html').expect(302);
    expect(page.headers.location).toBe('/signin');
    // A session signed with another secret is no session.
    const forged = signSession(
      { id: 'x', username: 'x', email: 'x@example.com', role: 'admin', phone: '', percentage: null },
      `another-secret-${randomUUID()}`,
      600,
    );
    await api().get('/admin/queues/').set('Cookie', `token=${forged}`).expect(302);
    const json = await api().get('/admin/queues/api/queues').set('Accept', 'application/json').expect(401);
    expect(json.body.error).toBe('Please sign in first.');
    await api().get('/admin/queues/static/favicon.ico').expect(302);
  });

  it('answers a signed-in customer with 403, as a page or as JSON', async () => {
    const page = await api()
      .get('/admin/queues')
      .set('Cookie', `token=${customer}`)
      .set('Accept', 'text/html')
      .expect(403)
      .expect('content-type', /html/);
    expect(page.text).toContain('Admins only');
    const json = await api()
      .get('/admin/queues/api/queues')
      .set('Authorization', `Bearer ${customer}`)
      .set('Accept', 'application/json')
      .expect(403);
    expect(json.body.error).toBe('You do not have permission to do this.');
    await api()
      .put(`/admin/queues/api/queues/${QUEUE_NAMES.email}/pause`)
      .set('Authorization', `Bearer ${customer}`)
      .expect(403);
  });
});
