import { signSession, toMicros, type Role } from '@raseed/kit';
import { dropDatabase, openDatabase, publishEvents, testEnv, uniqueName } from '@raseed/kit/testing';
import { Types, type Connection } from 'mongoose';
import supertest from 'supertest';
import { loadWalletConfig } from '../src/config';
import { entryModel, Ledger, type LedgerEntry } from '../src/data/ledger';
import { IN_FLIGHT_MS, reconcile, type ConfirmedPayment } from '../src/domain/reconcile';
import { startWallet } from '../src/service';

export interface TestUser {
  id: string;
  username: string;
  role: Role;
  token: string;
}

/** A signed-in user as auth would issue one (same secret, same claims), announced with user.registered. */
export async function newUsers(count: number, role: Role = 'user', secret?: string): Promise<TestUser[]> {
  const jwtSecret = secret ?? loadWalletConfig(testEnv('wallet')).JWT_SECRET;
  const users = Array.from({ length: count }, () => {
    const id = new Types.ObjectId().toString();
    const username = uniqueName(role);
    const token = signSession(
      { id, username, email: `${username}@example.com`, role, phone: '70000000', percentage: null },
      jwtSecret,
      3600,
    );
    return { id, username, role, token };
  });
  await publishEvents(
    'user.registered',
    ...users.map((u) => ({
      key: u.id,
      data: {
        userId: u.id,
        username: u.username,
        email: `${u.username}@example.com`,
        phone: '70000000',
        role: u.role,
        createdAt: new Date().toISOString(),
      },
    })),
  );
  return users;
}

export const newUser = async (role: Role = 'user') => (await newUsers(1, role))[0] as TestUser;

/** Confirms payments as the payments service does: one payment.confirmed event each. */
export async function confirm(user: TestUser, dollars: number, extra: { asDebt?: boolean } = {}) {
  const payment: ConfirmedPayment = {
    id: new Types.ObjectId().toString(),
    userId: user.id,
    type: 'IN',
    amount: toMicros(dollars),
    confirmedAt: new Date().toISOString(),
  };
  const [event] = await publishEvents('payment.confirmed', {
    key: user.id,
    data: {
      paymentId: payment.id,
      userId: user.id,
      type: 'IN',
      amount: payment.amount,
      productName: 'Binance',
      asDebt: extra.asDebt ?? false,
      confirmedAt: payment.confirmedAt,
    },
  });
  return { payment, event };
}

export const bearer = (user: { token: string }) => ({ Authorization: `Bearer ${user.token}` });

/** Starts the wallet service on its own database against the real infrastructure. */
export async function startTestWallet(extra: Record<string, string> = {}) {
  const config = loadWalletConfig(testEnv('wallet', extra));
  const service = await startWallet(config);
  const db = await openDatabase(config.MONGO_DB);
  const http = () => supertest(service.url);
  const { mongo, locks, redis, outbox } = service.context;
  const internal = (path: string, body: object) =>
    http().post(path).set('x-service-token', config.SERVICE_TOKEN).send(body);
  return {
    config,
    service,
    db,
    http,
    internal,
    /** The service's own ledger, for what a test must arrange below the HTTP API. */
    ledger: new Ledger(entryModel(mongo), locks, redis, outbox),
    /** The user's balance in dollars, as the user reads it. */
    async balance(user: TestUser): Promise<number> {
      const res = await http().get('/api/balance').set(bearer(user)).expect(200);
      return res.body.balance as number;
    },
    entries(account: string) {
      return db.collection('entries').find({ account }).sort({ seq: 1 }).toArray();
    },
    async stop() {
      await service.stop();
      await db.close();
      await dropDatabase(config.MONGO_DB);
    },
  };
}

export type TestWallet = Awaited<ReturnType<typeof startTestWallet>>;

/** Runs reconcile over a test wallet's ledger, against the payments the test confirmed. */
export function reconcileWallet(wallet: TestWallet, confirmed: ConfirmedPayment[]) {
  return reconcileDatabase(wallet.service.context.mongo, confirmed);
}

/** Runs reconcile over the ledger in a wallet's database (also one whose process was killed). */
export function reconcileDatabase(db: Connection, confirmed: ConfirmedPayment[]) {
  const entries = entryModel(db);
  return reconcile({
    accounts: () => entries.distinct('account'),
    chain: (account) => entries.find({ account }).sort({ seq: 1 }).lean<LedgerEntry[]>(),
    confirmedPayments: async function* () {
      yield* confirmed;
    },
    now: new Date(Date.now() + IN_FLIGHT_MS),
  });
}
