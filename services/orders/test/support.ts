import { hourKey, toMicros } from '@raseed/kit';
import { dropDatabase, eventually, openDatabase, testEnv } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import supertest from 'supertest';
import { IMAGE, startTestCatalog, type TestCatalog } from '../../catalog/test/support';
import type { ConfirmedPayment } from '../../wallet/src/domain/reconcile';
import {
  bearer,
  confirm,
  newUser,
  newUsers,
  reconcileWallet,
  startTestWallet,
  type TestUser,
  type TestWallet,
} from '../../wallet/test/support';
import { loadOrdersConfig } from '../src/config';
import { startOrders } from '../src/service';

export { bearer, confirm, newUser, newUsers, type TestUser };

/**
 * Orders with the services it calls while a customer waits: the wallet, and catalog synced
 * from a supplier simulator that orders also places supplier orders with. Each on its own
 * database and topics, against the real infrastructure.
 */
export async function startTestOrders(
  extra: Record<string, string> = {},
  options: {
    /** A test that runs orders as a process of its own (to kill it) starts it from `env` itself. */
    ownProcess?: boolean;
    /** A store already running these (see frontend/test/support/store.ts); its owner stops them. */
    wallet?: TestWallet;
    catalog?: TestCatalog;
  } = {},
) {
  const wallet: TestWallet = options.wallet ?? (await startTestWallet());
  const catalog: TestCatalog = options.catalog ?? (await startTestCatalog());
  const env = testEnv('orders', {
    WALLET_URL: wallet.service.url,
    CATALOG_URL: catalog.service.url,
    SUPPLIER_URL: catalog.sim.url,
    // Long enough that a loaded machine never times out a call the test means to succeed.
    SUPPLIER_TIMEOUT_MS: '3000',
    ORDER_PLACEMENT_BACKOFF_MS: '100',
    ORDER_SYNC_SECONDS: '3600',
    ...extra,
  });
  const config = loadOrdersConfig(env);
  let service = options.ownProcess ? null : await startOrders(config);
  const db = await openDatabase(config.MONGO_DB);
  /** Where orders answers; a restart moves it to a new port. */
  const url = () => service?.url ?? `http://127.0.0.1:${config.PORT}`;
  const http = () => supertest(url());
  const admin = await newUser('admin');
  /** Every top-up confirmed for this file's customers, for the wallet's reconcile. */
  const confirmed: ConfirmedPayment[] = [];
  expect((await catalog.sync(`Bearer ${admin.token}`)).status).toBe(200);

  return {
    config,
    env,
    /** Stops the service and starts a new one on the same data, as after a crash. */
    async restart(): Promise<void> {
      await service?.stop();
      service = await startOrders(config);
    },
    url,
    wallet,
    catalog,
    sim: catalog.sim.control,
    db,
    http,
    admin,
    /** A customer whose wallet holds `dollars`. */
    async customer(dollars = 0): Promise<TestUser> {
      const user = await newUser();
      if (dollars > 0) await this.topUp(user, dollars);
      else await eventually(async () => ((await wallet.entries(user.id)).length ? true : undefined));
      return user;
    },
    /** Credits the user's wallet as a confirmed payment does, and waits until the balance shows it. */
    async topUp(user: TestUser, dollars: number): Promise<void> {
      const before = await wallet.balance(user);
      confirmed.push((await confirm(user, dollars)).payment);
      await eventually(async () => ((await wallet.balance(user)) === before + dollars ? true : undefined), {
        what: `a balance of ${before + dollars}`,
      });
    },
    /** Places an order as the browser does. */
    order(user: TestUser, body: object, key?: string) {
      const req = http().post('/api/orders').set(bearer(user)).send(body);
      return key ? req.set('Idempotency-Key', key) : req;
    },
    /** An admin's decision on an order. */
    decide(orderId: string, action: 'confirmed' | 'rejected', replay?: string, by = admin) {
      return http().post('/api/orders/action').set(bearer(by)).send({ orderId, action, replay });
    },
    /** A created ('c-') product at `dollars`, made by an admin through catalog; answers its id. */
    async createdProduct(dollars: string, params = 'Account e-mail'): Promise<string> {
      const res = await catalog
        .http()
        .post('/api/create/product')
        .set(bearer(admin))
        .field('productName', `Gift card ${Math.random().toString(36).slice(2, 8)}`)
        .field('price', dollars)
        .field('params', params)
        .field('category_name', 'Steam')
        .attach('image', IMAGE)
        .expect(201);
      return res.body.product.id as string;
    },
    /** The wallet's reconcile over every account, against the top-ups confirmed here. */
    reconcile: () => reconcileWallet(wallet, confirmed),
    storedOrders(filter: object = {}) {
      return db.collection('orders').find(filter).toArray();
    },
    async stop() {
      await service?.stop();
      await db.close();
      await dropDatabase(config.MONGO_DB);
      if (!options.catalog) await catalog.stop();
      if (!options.wallet) await wallet.stop();
    },
  };
}

export type TestOrders = Awaited<ReturnType<typeof startTestOrders>>;

/**
 * An order of one $2 gift card written straight to the store, as placement records it before
 * the wallet is asked, a minute old: tests then leave it where a crash would have cut it off.
 */
export async function insertOrder(
  orders: TestOrders,
  user: Pick<TestUser, 'id' | 'username'>,
  productId: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const id = new Types.ObjectId();
  await orders.db.collection('orders').insertOne({
    _id: id,
    userId: user.id,
    username: user.username,
    productId,
    productName: 'Gift card',
    kind: 'created',
    supplierId: null,
    quantity: 1,
    unitPrice: toMicros(2),
    total: toMicros(2),
    params: 'Account e-mail:a@b.c',
    fields: { 'Account e-mail': 'a@b.c' },
    status: 'waiting',
    paid: false,
    failed: null,
    fingerprint: null,
    replay: null,
    externalId: null,
    reason: null,
    createdAt: new Date(Date.now() - 60_000),
    decidedAt: null,
    ...extra,
    hour: hourKey((extra.createdAt as Date | undefined) ?? new Date(Date.now() - 60_000)),
  });
  return id.toString();
}

export const dollars = (micros: number) => micros / 1_000_000;
export { toMicros };
