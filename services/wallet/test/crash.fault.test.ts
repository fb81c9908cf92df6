import { toMicros } from '@raseed/kit';
import {
  dropDatabase,
  eventually,
  openDatabase,
  publishEvents,
  spawnService,
  testEnv,
} from '@raseed/kit/testing';
import type { ChildProcess } from 'node:child_process';
import { Types } from 'mongoose';
import { loadWalletConfig } from '../src/config';
import type { ConfirmedPayment } from '../src/domain/reconcile';
import { newUsers, reconcileDatabase, type TestUser } from './support';

const PORT = 4702;
const env = testEnv('wallet', { PORT: String(PORT) });
const config = loadWalletConfig(env);
const url = `http://127.0.0.1:${PORT}`;
let wallet: ChildProcess | undefined;

async function startProcess(): Promise<void> {
  wallet = await spawnService('services/wallet/src/main.ts', env, PORT);
}

afterAll(async () => {
  wallet?.kill('SIGKILL');
  await dropDatabase(config.MONGO_DB);
});

/**
 * Calls the wallet as orders do: a call that got no answer (the process was down or died
 * mid-call) is sent again with the same order id until the wallet answers.
 */
async function call(pathname: string, body: object): Promise<{ ok: boolean; status: number }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`${url}${pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-token': config.SERVICE_TOKEN },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      return { ok: res.ok, status: res.status };
    } catch {
      if (Date.now() > deadline) return { ok: false, status: 0 };
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe('the wallet killed with SIGKILL during 500 credits and debits', () => {
  it('keeps every answered operation exactly once, and the ledger reconciles', async () => {
    await startProcess();
    const users = await newUsers(10);
    const funding: ConfirmedPayment[] = users.map((u) => ({
      id: new Types.ObjectId().toString(),
      userId: u.id,
      type: 'IN',
      amount: toMicros(1000),
      confirmedAt: new Date().toISOString(),
    }));
    await publishEvents(
      'payment.confirmed',
      ...funding.map((p) => ({
        key: p.userId,
        data: {
          paymentId: p.id,
          userId: p.userId,
          type: 'IN' as const,
          amount: p.amount,
          productName: 'Binance',
          asDebt: false,
          confirmedAt: p.confirmedAt,
        },
      })),
    );
    const db = await openDatabase(config.MONGO_DB);
    const entries = db.collection('entries');
    await eventually(
      async () => ((await entries.countDocuments({ kind: 'movement' })) === 10 ? true : undefined),
      {
        what: 'the accounts to be funded',
      },
    );

    // Debits of new orders, and refunds of orders whose debit was answered; what each
    // account should hold follows from the answers alone.
    const answered: string[] = [];
    const debited: { orderId: string; user: TestUser }[] = [];
    const expected = new Map(funding.map((p) => [p.userId, p.amount]));
    const price = toMicros(1.25);
    const move = (user: TestUser, micros: number) => expected.set(user.id, expected.get(user.id)! + micros);
    let done = 0;
    let killed = false;
    let exit: {
      code: number | null;
      signal: NodeJS.Signals | null;
      signalCode: NodeJS.Signals | null;
    } | null = null;
    const operation = async (i: number) => {
      const user = users[i % users.length] as TestUser;
      const refundable = debited.length > 0 && i % 3 === 0 ? debited.shift() : undefined;
      if (refundable) {
        const res = await call(`/internal/orders/${refundable.orderId}/refund`, {});
        if (res.ok) {
          answered.push(`order:${refundable.orderId}:refund`);
          move(refundable.user, price);
        }
      } else {
        const orderId = new Types.ObjectId().toString();
        const res = await call(`/internal/orders/${orderId}/debit`, {
          userId: user.id,
          amount: price,
          productName: 'Card',
        });
        if (res.ok) {
          answered.push(`order:${orderId}:debit`);
          debited.push({ orderId, user });
          move(user, -price);
        }
      }
      done++;
    };
    const queue = Array.from({ length: 500 }, (_, i) => i);
    const workers = Array.from({ length: 8 }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        if (!killed && done >= 150) {
          killed = true;
          const victim = wallet!;
          // What the process really died of, read when it exited.
          victim.once('exit', (code, signal) => {
            exit = { code, signal, signalCode: victim.signalCode };
            setTimeout(() => void startProcess(), 300);
          });
          victim.kill('SIGKILL');
        }
        await operation(next);
      }
    });
    await Promise.all(workers);
    await eventually(
      () =>
        fetch(`${url}/readyz`).then(
          (r) => (r.ok ? true : undefined),
          () => undefined,
        ),
      { timeoutMs: 60_000 },
    );

    expect(exit).toEqual({ code: null, signal: 'SIGKILL', signalCode: 'SIGKILL' });
    expect(answered.length).toBe(500);
    const keys = (await entries.find({}, { projection: { key: 1 } }).toArray()).map((e) => e.key as string);
    const counts = new Map<string, number>();
    for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
    expect(answered.filter((key) => counts.get(key) !== 1)).toEqual([]);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const report = await reconcileDatabase(db, funding);
    expect(report).toMatchObject({ accounts: 10, payments: 10, inFlight: 0, problems: [] });
    // Every final balance is its funding minus the answered debits plus the answered refunds.
    for (const user of users) {
      const [last] = await entries.find({ account: user.id }).sort({ seq: -1 }).limit(1).toArray();
      expect({ user: user.id, balance: last?.balance }).toEqual({
        user: user.id,
        balance: expected.get(user.id),
      });
    }
    await db.close();
  }, 120_000);
});
