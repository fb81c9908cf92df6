import { createLogger, redisConnection } from '@raseed/kit';
import { eventually } from '@raseed/kit/testing';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type IORedis from 'ioredis';
import supertest from 'supertest';
import { createGateway } from '../../gateway/src/app';
import { loadGatewayConfig } from '../../gateway/src/config';
import { PASSWORD, startTestAuth, type TestAuth } from '../../services/auth/test/support';
import { RECEIPT, startMoneyServices, type MoneyServices } from '../../services/payments/test/support';

/**
 * The system as the browser sees it: the gateway in front of the real auth, wallet and
 * payments services, which learn of each other only through their events.
 */
let auth: TestAuth;
let money: MoneyServices;
let redis: IORedis;
let gateway: http.Server;
let store: () => supertest.Agent;
let admin: string;

beforeAll(async () => {
  [auth, money] = await Promise.all([startTestAuth(), startMoneyServices()]);
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    AUTH_URL: auth.service.url,
    WALLET_URL: money.wallet.service.url,
    PAYMENTS_URL: money.service.url,
    // Not part of this test.
    CATALOG_URL: 'http://127.0.0.1:9',
    ORDERS_URL: 'http://127.0.0.1:9',
    // Every sign-up comes from this machine's address, which others on it share; the limits
    // have tests of their own (services/auth, infra/test/security.test.ts).
    AUTH_RATE_LIMIT: '10000',
  });
  gateway = http.createServer(createGateway(config, redis, createLogger('gateway', 'silent')));
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  // The storefront's client marks every call it makes.
  store = () => supertest.agent(url).set('X-Requested-With', 'XMLHttpRequest');
  admin = await signIn(auth.adminEmail);
});

afterAll(async () => {
  await new Promise((resolve) => gateway.close(resolve));
  redis.disconnect();
  await Promise.all([auth.stop(), money.stop()]);
});

async function signIn(email: string) {
  const res = await store().post('/api/signin').send({ email, password: PASSWORD }).expect(200);
  return `Bearer ${res.body.token as string}`;
}

/** Signs a customer up through the store and waits until payments knows them from user.registered. */
async function signUp() {
  const username = `buyer${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const email = `${username}@example.com`;
  await store()
    .post('/api/signup')
    .send({ username, email, phone: '70123456', password: PASSWORD })
    .expect(201);
  const token = await signIn(email);
  const id = (await auth.db.collection('users').findOne({ email }))?._id.toString() as string;
  await eventually(
    async () =>
      (await money.db.collection('users').countDocuments({ _id: id as never })) ? true : undefined,
    {
      what: 'payments to learn of the new user',
    },
  );
  return { id, token };
}

const figures = async (userId: string) => {
  const res = await store().get('/api/users?limit=100').set('Authorization', admin).expect(200);
  return (res.body.users as { id: string; debt: number; sales: number; lastsales: number }[]).find(
    (u) => u.id === userId,
  );
};
const balanceOf = async (token: string) =>
  (await store().get('/api/balance').set('Authorization', token)).body.balance;
const debtOf = async (token: string) =>
  (await store().get('/api/debt').set('Authorization', token)).body.debt;

describe('money through the store', () => {
  it('a top-up, credit as debt, a debt change and a refused withdrawal, as the customer and the Users List see them', async () => {
    const customer = await signUp();

    const submitted = await store()
      .post('/api/payments')
      .set('Authorization', customer.token)
      .field('product_name', 'Binance')
      .field('amount', '25')
      .attach('image', RECEIPT)
      .expect(201);
    const paymentId = submitted.body.payment.id as string;
    const receipt = await store().get(submitted.body.payment.image_path).set('Authorization', customer.token);
    expect([receipt.status, receipt.headers['content-type']]).toEqual([200, 'image/png']);
    await store()
      .put(`/api/payments/${paymentId}/update-status`)
      .set('Authorization', admin)
      .send({ action: 'confirmed' })
      .expect(200);
    await eventually(async () => ((await balanceOf(customer.token)) === 25 ? true : undefined), {
      what: 'the confirmed top-up in the balance',
    });

    const advanced = await store()
      .post('/api/debtpayment')
      .set('Authorization', admin)
      .send({ user_id: customer.id, amount: 10, type: 'IN' })
      .expect(201);
    expect(advanced.body).toMatchObject({
      paymentStatus: true,
      message: '$10 added to wallet successfully.',
    });
    await eventually(async () => ((await balanceOf(customer.token)) === 35 ? true : undefined), {
      what: 'the debt credit in the balance',
    });
    expect(await debtOf(customer.token)).toBe(10);

    const changed = await store()
      .post('/api/editdebt')
      .set('Authorization', admin)
      .send({ user_id: customer.id, newdebt: 4.5 })
      .expect(200);
    expect(changed.body).toMatchObject({ debtStatus: true, debt: 4.5 });
    expect(await debtOf(customer.token)).toBe(4.5);
    expect(await balanceOf(customer.token)).toBe(35);

    const refused = await store()
      .post('/api/payments')
      .set('Authorization', admin)
      .send({ user_id: customer.id, amount: 35.01, type: 'OUT' })
      .expect(400);
    expect(refused.body.error).toBe('Insufficient balance. You have only 35.00$ in your balance');
    expect(await balanceOf(customer.token)).toBe(35);

    // The Users List reads the debt and sales from its own copy, fed by the wallet's and payments' events.
    const listed = await eventually(
      async () => {
        const user = await figures(customer.id);
        return user?.debt === 4.5 && user.sales === 35 ? user : undefined;
      },
      { what: 'the Users List to show the new debt and the sales' },
    );
    expect(listed).toMatchObject({ debt: 4.5, sales: 35, lastsales: 35 });

    const profile = await store()
      .get(`/api/profile/${customer.id}`)
      .set('Authorization', customer.token)
      .expect(200);
    expect(
      profile.body.transactions.map((t: { amount: number; type: string }) => [t.type, t.amount]),
    ).toEqual([
      ['IN', 10],
      ['IN', 25],
    ]);
    expect(await money.reconcile()).toBe(0);
  });

  it('keeps one customer out of another’s money, and visitors out of everyone’s', async () => {
    const [owner, other] = [await signUp(), await signUp()];
    const { body } = await store()
      .post('/api/payments')
      .set('Authorization', owner.token)
      .field('product_name', 'Whish-Money')
      .field('amount', '5')
      .attach('image', RECEIPT)
      .expect(201);
    for (const path of [
      `/api/balance?user_id=${owner.id}`,
      `/api/debt?user_id=${owner.id}`,
      `/api/profile/${owner.id}`,
      body.payment.image_path as string,
    ]) {
      expect([path, (await store().get(path).set('Authorization', other.token)).status]).toEqual([path, 403]);
      expect([path, (await store().get(path).set('Authorization', admin)).status]).toEqual([path, 200]);
      expect([path, (await store().get(path)).status]).toEqual([path, 401]);
    }
    const theirs = await store()
      .post('/api/payments/mypayments')
      .set('Authorization', other.token)
      .send({ userId: owner.id });
    expect(theirs.status).toBe(403);
  });

  it('describes the auth, wallet and payments calls in one OpenAPI document at /api/docs', async () => {
    const { body } = await store().get('/api/docs/openapi.json').expect(200);
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining([
        '/api/signup',
        '/api/users',
        '/api/balance',
        '/api/editdebt',
        '/api/payments',
        '/api/debtpayment',
      ]),
    );
    expect(Object.keys(body.paths).filter((p) => p.startsWith('/internal'))).toEqual([]);
    expect(body.info.description).toContain('Not described right now: catalog, orders.');
    const page = await store().get('/api/docs/').expect(200);
    expect(page.text).toContain('swagger-ui');
  });
});
