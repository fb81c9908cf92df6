import { DocumentLocks, HttpError, Outbox, redisConnection, toMicros } from '@raseed/kit';
import { eventually, openDatabase } from '@raseed/kit/testing';
import type IORedis from 'ioredis';
import { Types, type Connection } from 'mongoose';
import { entryModel, Ledger, type Movement } from '../src/data/ledger';
import { checkChain } from '../src/domain/reconcile';
import { movementKeys } from '../src/domain/rules';
import {
  confirm,
  newUsers,
  reconcileWallet,
  startTestWallet,
  type TestUser,
  type TestWallet,
} from './support';

/**
 * The ledger's correctness rests on the unique (account, seq) alone (ARCHITECTURE rule 9):
 * these writers race without a lock between them, so a movement that read a last entry
 * someone else has chained onto meanwhile must hit the duplicate seq, read on and retry.
 */
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const newId = () => new Types.ObjectId().toString();

/** The same Redis server, another of its databases: same lock names, different locks. */
function apartFrom(redisUrl: string): string {
  const url = new URL(redisUrl);
  url.pathname = '/1';
  return url.toString();
}

describe('two writers on one database that do not share a lock', () => {
  let wallet: TestWallet;
  let other: Connection;
  let otherRedis: IORedis;
  let writers: [Ledger, Ledger];
  beforeAll(async () => {
    wallet = await startTestWallet();
    other = await openDatabase(wallet.config.MONGO_DB);
    // The second writer's locks and head hints live apart, as when one's lock expired under it
    // and the other took the account: each writes while the other does.
    otherRedis = redisConnection(apartFrom(wallet.config.REDIS_URL));
    // Locks that wait long: a hundred callers queue on each, and this measures correctness, not latency.
    const patient = (redis: IORedis) => new DocumentLocks(redis, 10_000, 120_000);
    const { mongo, redis } = wallet.service.context;
    writers = [
      new Ledger(entryModel(mongo), patient(redis), redis, new Outbox(mongo)),
      new Ledger(entryModel(other), patient(otherRedis), otherRedis, new Outbox(other)),
    ];
  });
  afterAll(async () => {
    await other.close();
    otherRedis.disconnect();
    await wallet.stop();
  });

  const fund = (account: string, dollars: number) =>
    writers[0].move({
      account,
      key: movementKeys.payment(newId()),
      kind: 'movement',
      type: 'IN',
      amount: toMicros(dollars),
      productName: 'Binance',
    });

  // Across accounts, each writer's inserts go out together (Outbox.createInOrder): a chain that
  // loses its seq stops the call for the chains after it, which are tried again.
  it.each([
    [1, 120],
    [6, 40],
  ])(
    'lands each of %i × %i movements once, each sent to both writers at once, on chains without gap or repeat',
    async (accountCount, perAccount) => {
      const accounts = range(accountCount).map(newId);
      for (const account of accounts) await fund(account, 1000);
      const debits = Math.round(perAccount * 0.75);
      const movements: Movement[] = accounts.flatMap((account) =>
        range(perAccount).map((i): Movement =>
          i < debits
            ? {
                account,
                key: movementKeys.orderDebit(newId()),
                kind: 'movement',
                type: 'OUT',
                amount: toMicros(1.25),
                productName: 'Card',
              }
            : {
                account,
                key: movementKeys.orderRefund(newId()),
                kind: 'movement',
                type: 'IN',
                amount: toMicros(2.5),
                productName: 'Card',
                status: 'refunded',
              },
        ),
      );
      const results = await Promise.all(
        movements.map((m) => Promise.all(writers.map((writer) => writer.move(m)))),
      );
      // Of each pair exactly one inserted the entry; the other answered that same entry.
      expect(results.filter(([a, b]) => a!.applied === b!.applied)).toEqual([]);
      expect(results.filter(([a, b]) => !a!.entry._id.equals(b!.entry._id))).toEqual([]);

      for (const account of accounts) {
        const chain = await writers[0].chain(account);
        expect(chain.map((e) => e.seq)).toEqual(range(perAccount + 2));
        const mine = movements.filter((m) => m.account === account);
        expect(mine.filter((m) => chain.filter((e) => e.key === m.key).length !== 1)).toEqual([]);
        expect(checkChain(account, chain)).toEqual([]);
        expect(chain.at(-1)?.balance).toBe(
          toMicros(1000) - debits * toMicros(1.25) + (perAccount - debits) * toMicros(2.5),
        );
      }
    },
  );

  it('refuses a debt change whose shown debt a racing change replaced, however the race goes', async () => {
    const outcomes = { refused: 0, applied: 0 };
    for (const round of range(12)) {
      const account = newId();
      await writers[0].move({
        account,
        key: movementKeys.debtEdit('admin', newId()),
        kind: 'debt',
        amount: 0,
        debt: { set: toMicros(100) },
        productName: 'Debt',
      });
      // An admin's +50 given as debt, and another admin's Change Debt to 80 from the 100 it showed.
      const raise: Movement = {
        account,
        key: movementKeys.payment(newId()),
        kind: 'movement',
        type: 'IN',
        amount: toMicros(50),
        debt: { add: toMicros(50) },
        productName: 'Binance',
      };
      const change: Movement = {
        account,
        key: movementKeys.debtEdit('admin', newId()),
        kind: 'debt',
        amount: 0,
        debt: { set: toMicros(80) },
        expectedDebt: toMicros(100),
        productName: 'Debt',
      };
      const [raised, changed] = await Promise.allSettled([
        writers[round % 2]!.move(raise),
        writers[(round + 1) % 2]!.move(change),
      ]);
      expect(raised.status).toBe('fulfilled');
      const chain = await writers[0].chain(account);
      expect(checkChain(account, chain)).toEqual([]);
      const debt = chain.at(-1)?.debt;
      if (changed.status === 'fulfilled') {
        // The change landed first: the +50 counts on top of it.
        outcomes.applied++;
        expect(debt).toBe(toMicros(130));
      } else {
        outcomes.refused++;
        expect(changed.reason).toBeInstanceOf(HttpError);
        expect(changed.reason).toMatchObject({
          status: 409,
          message: 'The debt has changed meanwhile. Please reload and try again.',
        });
        expect(debt).toBe(toMicros(150));
      }
    }
    expect(outcomes.applied + outcomes.refused).toBe(12);
  });

  it('lets one of ten concurrent changes from the same shown debt through', async () => {
    const account = newId();
    await writers[0].move({
      account,
      key: movementKeys.debtEdit('admin', newId()),
      kind: 'debt',
      amount: 0,
      debt: { set: toMicros(100) },
      productName: 'Debt',
    });
    const answers = await Promise.allSettled(
      range(10).map((i) =>
        writers[i % 2]!.move({
          account,
          key: movementKeys.debtEdit('admin', newId()),
          kind: 'debt',
          amount: 0,
          debt: { set: toMicros(i + 1) },
          expectedDebt: toMicros(100),
          productName: 'Debt',
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    expect(
      answers.filter((a) => a.status === 'rejected' && (a.reason as HttpError).status === 409),
    ).toHaveLength(9);
    const chain = await writers[0].chain(account);
    expect(chain.map((e) => e.seq)).toEqual(range(3));
    expect(checkChain(account, chain)).toEqual([]);
  });
});

describe('two wallet processes on one database', () => {
  let first: TestWallet;
  let second: TestWallet;
  beforeAll(async () => {
    first = await startTestWallet();
    // Locks and head hints apart: only the unique indexes stand between the two processes.
    second = await startTestWallet({
      MONGO_DB: first.config.MONGO_DB,
      REDIS_URL: apartFrom(first.config.REDIS_URL),
    });
  });
  afterAll(async () => {
    await second.service.stop();
    await second.db.close();
    await first.stop();
  });

  it('pays and refunds each order once when every call goes to both at once', async () => {
    const users = (await newUsers(2)) as [TestUser, TestUser];
    // Both processes consume the confirmations: the funding races too.
    const funding = await Promise.all(users.map((user) => confirm(user, 300)));
    for (const user of users) {
      await eventually(async () => ((await first.balance(user)) === 300 ? true : undefined), {
        what: 'the funding',
      });
    }
    const orders = users.flatMap((user) => range(75).map(() => ({ user, orderId: newId() })));
    const both = (call: (wallet: TestWallet) => Promise<{ status: number; body: { applied?: boolean } }>) =>
      Promise.all([call(first), call(second)]);
    const debit = ({ user, orderId }: (typeof orders)[number]) =>
      both((wallet) =>
        wallet.internal(`/internal/orders/${orderId}/debit`, {
          userId: user.id,
          amount: toMicros(1.1),
          productName: 'Card',
        }),
      );
    const refund = ({ orderId }: (typeof orders)[number]) =>
      both((wallet) => wallet.internal(`/internal/orders/${orderId}/refund`, {}));

    // Each user: 50 debits, then 25 more debits while 25 of the first are refunded.
    const paid = orders.filter((_, i) => i % 75 < 50);
    const later = orders.filter((_, i) => i % 75 >= 50);
    const refunded = orders.filter((_, i) => i % 75 < 25);
    const answers = [
      ...(await Promise.all(paid.map(debit))),
      ...(await Promise.all([...later.map(debit), ...refunded.map(refund)])),
    ];
    expect(answers.flat().filter((a) => a.status !== 200)).toEqual([]);
    // Of each pair of calls exactly one moved the money.
    expect(answers.filter(([a, b]) => a.body.applied === b.body.applied)).toEqual([]);

    for (const user of users) {
      expect(await first.balance(user)).toBe(300 - 75 * 1.1 + 25 * 1.1);
      expect(await second.balance(user)).toBe(300 - 75 * 1.1 + 25 * 1.1);
      const chain = await first.entries(user.id);
      expect(chain.map((e) => e.seq)).toEqual(range(2 + 75 + 25));
    }
    const report = await reconcileWallet(
      first,
      funding.map((f) => f.payment),
    );
    expect(report.problems).toEqual([]);
  });
});
