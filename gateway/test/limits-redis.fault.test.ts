import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, redisConnection } from '@raseed/kit';
import { infra, uniqueName } from '@raseed/kit/testing';
import type IORedis from 'ioredis';
import supertest from 'supertest';
import { PASSWORD, startTestAuth, type TestAuth } from '../../services/auth/test/support';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';

/**
 * Issue 16: the limits while Redis is away count in each process instead of switching off
 * (auth's per-account sign-in failures, the gateway's per-address sign-ups), and sign-ins go on.
 */
let auth: TestAuth;
let redis: IORedis;
let gateway: http.Server;

beforeAll(async () => {
  auth = await startTestAuth();
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  redis.on('error', () => undefined);
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    AUTH_URL: auth.service.url,
    WALLET_URL: 'http://127.0.0.1:9',
    CATALOG_URL: 'http://127.0.0.1:9',
    ORDERS_URL: 'http://127.0.0.1:9',
    PAYMENTS_URL: 'http://127.0.0.1:9',
    TRUST_PROXY: 'loopback',
  });
  gateway = http.createServer(createGateway(config, redis, createLogger('gateway', 'silent')));
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await infra('up', 'redis');
  await new Promise((r) => gateway.close(r));
  redis.disconnect();
  await auth.stop();
});

const xhr = { 'X-Requested-With': 'XMLHttpRequest' };
const address = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
const api = () => supertest(`http://127.0.0.1:${(gateway.address() as AddressInfo).port}`);
const account = () => {
  const username = uniqueName('rl');
  return { username, email: `${username}@example.com`, phone: '70000000', password: PASSWORD };
};

describe('the limits with Redis stopped', () => {
  it('still hold an account after 10 failures and an address after 10 sign-ups, while the right password works elsewhere', async () => {
    const started = Date.now();
    const customer = account();
    await api().post('/api/signup').set(xhr).set('X-Forwarded-For', address()).send(customer).expect(201);
    await infra('down', 'redis');

    const signIn = (email: string, password: string) =>
      api().post('/api/signin').set(xhr).set('X-Forwarded-For', address()).send({ email, password });
    // Sign-ins go on without Redis.
    expect((await signIn(customer.email, PASSWORD)).status).toBe(200);
    const target = account().email;
    for (let i = 1; i <= 10; i++) expect((await signIn(target, 'wrong-pass')).status).toBe(401);
    expect((await signIn(target, 'wrong-pass')).status).toBe(429);
    expect((await signIn(customer.email, PASSWORD)).status).toBe(200);

    const crowded = address();
    const signUp = () => api().post('/api/signup').set(xhr).set('X-Forwarded-For', crowded).send(account());
    for (let i = 1; i <= 10; i++) expect((await signUp()).status).toBe(201);
    const blocked = await signUp();
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatch(/^Too many attempts/);
    console.log(`[limits] 25 requests with Redis stopped took ${Date.now() - started} ms`);
  }, 180_000);
});
