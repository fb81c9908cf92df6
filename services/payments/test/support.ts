import { ObjectStore } from '@raseed/kit';
import { dropDatabase, eventually, openDatabase, testEnv } from '@raseed/kit/testing';
import path from 'node:path';
import supertest from 'supertest';
import { bearer, startTestWallet, type TestUser } from '../../wallet/test/support';
import { runReconcile } from '../../wallet/src/reconcile';
import { loadPaymentsConfig } from '../src/config';
import { startPayments } from '../src/service';

export const RECEIPT = path.join(__dirname, 'fixtures', 'receipt.png');

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
    /** A customer's top-up with the test receipt; answers the response. */
    topUp(user: TestUser, fields: Record<string, string> = {}, file = RECEIPT) {
      const req = http().post('/api/payments').set(bearer(user));
      for (const [name, value] of Object.entries({ product_name: 'Binance', amount: '20', ...fields })) {
        req.field(name, value);
      }
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
      return runReconcile({ ...wallet.config, PAYMENTS_URL: service.url });
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
