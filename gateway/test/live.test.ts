import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, redisConnection, signSession, type Role } from '@raseed/kit';
import { publishEvents, TEST_TOPIC_PREFIX } from '@raseed/kit/testing';
import type IORedis from 'ioredis';
import { createGateway, liveStreams } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { startLiveFeed, type LiveStreams } from '../src/live';
import { openStream, type TestStream } from './sse';

/**
 * Pages that update themselves, from the browser's side: two gateway instances, each with its own
 * feed from Kafka, and the services' events published as their relays do.
 */
const JWT_SECRET = `live-test-secret-${randomUUID()}`;
const NOWHERE = 'http://127.0.0.1:9';

let redis: IORedis;
const instances: { server: http.Server; live: LiveStreams; stop?: () => Promise<void> }[] = [];
const opened: TestStream[] = [];

const config = loadGatewayConfig({
  NODE_ENV: 'test',
  JWT_SECRET,
  KAFKA_TOPIC_PREFIX: TEST_TOPIC_PREFIX,
  LIVE_STREAMS_PER_USER: '3',
  AUTH_URL: NOWHERE,
  WALLET_URL: NOWHERE,
  CATALOG_URL: NOWHERE,
  ORDERS_URL: NOWHERE,
  PAYMENTS_URL: NOWHERE,
});

async function startInstance(feed: boolean): Promise<string> {
  const logger = createLogger('gateway', 'silent');
  const live = liveStreams(config, redis, logger);
  const server = http.createServer(createGateway(config, redis, logger, undefined, live));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const instance: (typeof instances)[number] = { server, live };
  instances.push(instance);
  if (feed) {
    const started = startLiveFeed(config, live, logger);
    instance.stop = started.stop;
    await started.started;
  }
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const person = (role: Role) => {
  const id = randomUUID();
  const token = signSession(
    { id, username: role, email: `${role}@example.com`, role, phone: '70000000', percentage: null },
    JWT_SECRET,
    600,
  );
  return { id, token };
};

async function stream(base: string, token?: string): Promise<TestStream> {
  const s = await openStream(base, token);
  opened.push(s);
  return s;
}

let first: string;
let second: string;
let unfed: string;

beforeAll(async () => {
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  [first, second, unfed] = await Promise.all([
    startInstance(true),
    startInstance(true),
    startInstance(false),
  ]);
});

afterAll(async () => {
  for (const s of opened) s.close();
  for (const { server, live, stop } of instances) {
    live.close();
    await stop?.();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await redis.quit();
});

const movement = (userId: string) => ({
  userId,
  key: randomUUID(),
  seq: 1,
  amount: 5_000_000,
  balance: 5_000_000,
  debt: 0,
  productName: 'Top-up',
});

describe('GET /api/events', () => {
  it('opens an event stream that proxies pass on at once', async () => {
    const customer = person('user');
    const s = await stream(first, customer.token);
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(s.headers['cache-control']).toBe('no-cache, no-transform');
    expect(s.headers['x-accel-buffering']).toBe('no');
  });

  it('tells each customer of their own changes only, on whichever instance their page is', async () => {
    const alice = person('user');
    const bob = person('user');
    const aliceHere = await stream(first, alice.token);
    const aliceThere = await stream(second, alice.token);
    const bobStream = await stream(second, bob.token);
    const paymentId = randomUUID();
    await publishEvents('wallet.credited', { key: alice.id, data: movement(alice.id) });
    await publishEvents('payment.confirmed', {
      key: alice.id,
      data: {
        paymentId,
        userId: alice.id,
        type: 'IN',
        amount: 5_000_000,
        productName: 'Whish-Money',
        asDebt: false,
        confirmedAt: new Date().toISOString(),
      },
    });
    for (const s of [aliceHere, aliceThere]) {
      expect((await s.next((m) => m.event === 'wallet')).data).toEqual({});
      expect((await s.next((m) => m.event === 'payments')).data).toEqual({ id: paymentId });
    }
    // Bob hears a change of his own, and never Alice's, which came first on the same topics.
    await publishEvents('user.discount-changed', {
      key: bob.id,
      data: { userId: bob.id, percentage: 5, setAt: new Date().toISOString() },
    });
    await bobStream.next((m) => m.event === 'discount');
    expect(bobStream.messages).toEqual([{ event: 'discount', data: {} }]);
    // No amount or balance ever travels on a stream.
    expect(aliceHere.body).not.toMatch(/5000000|balance|amount/);
  });

  it('tells admins that something became waiting or was decided, without whose or how much', async () => {
    const admin = person('admin');
    const customer = person('user');
    const adminStream = await stream(second, admin.token);
    const customerStream = await stream(first, customer.token);
    const orderId = randomUUID();
    await publishEvents('order.placed', {
      key: customer.id,
      data: {
        orderId,
        userId: customer.id,
        productId: 'p-1',
        productName: 'PUBG 60 UC',
        quantity: 1,
        total: 990_000,
        placedAt: new Date().toISOString(),
      },
    });
    await adminStream.next((m) => m.event === 'waiting-orders');
    expect(await customerStream.next((m) => m.event === 'orders')).toEqual({
      event: 'orders',
      data: { id: orderId },
    });
    await publishEvents('payment.submitted', {
      key: customer.id,
      data: {
        paymentId: randomUUID(),
        userId: customer.id,
        method: 'Binance',
        amount: 10_000_000,
        createdAt: new Date().toISOString(),
      },
    });
    await adminStream.next((m) => m.event === 'waiting-payments');
    expect(adminStream.messages).toEqual([
      { event: 'waiting-orders', data: {} },
      { event: 'waiting-payments', data: {} },
    ]);
  });

  it('ends the streams of a session that ends, and opens none for it again', async () => {
    const customer = person('user');
    const here = await stream(first, customer.token);
    const there = await stream(second, customer.token);
    await publishEvents('user.sessions-ended', {
      key: customer.id,
      data: { userId: customer.id, at: Date.now() },
    });
    await Promise.all([here.ended, there.ended]);
    const again = await stream(first, customer.token);
    await again.ended;
    expect(again.status).toBe(401);
    expect(JSON.parse(again.body)).toEqual({ error: 'Please sign in first.' });
  });

  it('answers 401 without a session or with a forged one', async () => {
    const forged = signSession(
      { id: randomUUID(), username: 'x', email: 'x@example.com', role: 'admin', phone: '', percentage: null },
      'not-the-secret-not-the-secret-not-the-secret',
      600,
    );
    for (const token of [undefined, forged, 'garbage']) {
      const s = await stream(first, token);
      await s.ended;
      expect(s.status).toBe(401);
    }
  });

  it('limits the streams one user opens on an instance', async () => {
    const customer = person('user');
    const streams = [];
    for (let i = 0; i < 3; i += 1) streams.push(await stream(first, customer.token));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
    const fourth = await stream(first, customer.token);
    await fourth.ended;
    expect(fourth.status).toBe(429);
    expect(JSON.parse(fourth.body)).toEqual({ error: 'Too many pages are open for live updates.' });
    // A closed page frees its place.
    streams[0]!.close();
    await streams[0]!.ended;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await stream(first, customer.token)).status).toBe(200);
  });

  it('answers 503 while an instance has no feed, so pages check by themselves', async () => {
    const s = await stream(unfed, person('user').token);
    await s.ended;
    expect(s.status).toBe(503);
    expect(s.headers['retry-after']).toBe('30');
  });
});
