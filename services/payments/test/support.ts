import { DocumentLocks, ObjectStore, Outbox, redisConnection } from '@raseed/kit';
import { dropDatabase, eventually, openDatabase, testEnv } from '@raseed/kit/testing';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import supertest from 'supertest';
import { bearer, startTestWallet, type TestUser } from '../../wallet/test/support';
import { runReconcile } from '../../wallet/src/reconcile';
import { loadPaymentsConfig } from '../src/config';
import { paymentModels, PaymentStore } from '../src/data/payments';
import { startPayments } from '../src/service';

export const RECEIPT = path.join(__dirname, 'fixtures', 'receipt.png');

/**
 * A receipt no one has sent before: the test PNG with bytes of its own after its end, so its
 * SHA-256 differs while it still reads as a PNG. A customer may send one receipt only once.
 */
export function freshReceipt(): Buffer {
  return Buffer.concat([fs.readFileSync(RECEIPT), Buffer.from(randomUUID())]);
}

/** The wallet and payments services on their own databases, talking to each other as in production. */
export async function startMoneyServices(extra: Record<string, string> = {}) {
  const wallet = await startTestWallet();
  const config = loadPaymentsConfig(testEnv('payments', { WALLET_URL: wallet.service.url, ...extra }));
  const service = await startPayments(config);
  const db = await openDatabase(config.MONGO_DB);
  const objects = new ObjectStore(config, config.S3_BUCKET);
  const http = () => supertest(service.url);

  /** Waits until payments has learnt of the users from their user.registered events. */
  async function known(...users: TestUser[]) {
    await eventually(
      async () =>
        (await db.collection('users').countDocuments({ _id: { $in: users.map((u) => u.id) } as never })) ===
        users.length
          ? true
          : undefined,
      { what: 'the users to be known to payments' },
    );
  }

  return {
    config,
    service,
    db,
    http,
    wallet,
    objects,
    known,
    /** A customer's top-up with a receipt (the test one unless told), and an Idempotency-Key if given. */
    topUp(
      user: TestUser,
      fields: Record<string, string> = {},
      file: string | Buffer = RECEIPT,
      key?: string,
    ) {
      const req = http().post('/api/payments').set(bearer(user));
      if (key) req.set('Idempotency-Key', key);
      for (const [name, value] of Object.entries({ product_name: 'Binance', amount: '20', ...fields })) {
        req.field(name, value);
      }
      if (typeof file !== 'string') return req.attach('image', file, 'receipt.png');
      return file ? req.attach('image', file) : req;
    },
    adminPayment(admin: TestUser, body: object, route = '/api/payments') {
      return http().post(route).set(bearer(admin)).send(body);
    },
    decide(admin: TestUser, id: string, action: string) {
      return http().put(`/api/payments/${id}/update-status`).set(bearer(admin)).send({ action });
    },
    /** npm run wallet:reconcile against these two services; answers its exit code. */
    reconcile() {
      return runReconcile({ ...wallet.config, PAYMENTS_URL: [service.url] });
    },
    async stop() {
      await service.stop();
      await db.close();
      await dropDatabase(config.MONGO_DB);
      await wallet.stop();
    },
  };
}

export type MoneyServices = Awaited<ReturnType<typeof startMoneyServices>>;

/** The payments' store on a database of its own, without the service: for the tests of its figures and counts. */
export async function openPaymentStore() {
  const env = testEnv('payments');
  const conn = await openDatabase(env.MONGO_DB!);
  const models = paymentModels(conn);
  await Promise.all(Object.values(models).map((m) => m.init()));
  const redis = redisConnection(env.REDIS_URL!);
  const locks = new DocumentLocks(redis);
  const outbox = new Outbox(conn);
  const close = async () => {
    await conn.close();
    await dropDatabase(env.MONGO_DB!);
    redis.disconnect();
  };
  return { models, locks, outbox, store: new PaymentStore(models, locks, outbox), close };
}
