import { createQueue, QUEUE_NAMES } from '@raseed/kit';
import { eventually } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import { insertOrder, startTestOrders, type TestOrders } from '../../services/orders/test/support';
import { startMoneyServices, type MoneyServices } from '../../services/payments/test/support';
import { bearer, newUser, type TestUser } from '../../services/wallet/test/support';
import supertest from 'supertest';
import type { ReconcileResult } from '../../services/wallet/src/jobs/reconcile';
import { runReconcile } from '../../services/wallet/src/reconcile';
import { startWallet } from '../../services/wallet/src/service';

/**
 * npm run reconcile over the whole store: the wallet's ledger against the payments and the
 * orders services, each read through its own API, as an operator runs it.
 */
let money: MoneyServices;
let orders: TestOrders;
let admin: TestUser;
let giftCard: string;
beforeAll(async () => {
  money = await startMoneyServices();
  orders = await startTestOrders({}, { wallet: money.wallet });
  admin = orders.admin;
  giftCard = await orders.createdProduct('2');
}, 120_000);
afterAll(async () => {
  await orders.stop();
  await money.stop();
});

/** Runs the tool; answers its exit code and what it printed. */
async function reconcile(): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  try {
    const code = await runReconcile({
      ...money.wallet.config,
      PAYMENTS_URL: [money.service.url],
      ORDERS_URL: [orders.url()],
    });
    return { code, lines };
  } finally {
    log.mockRestore();
  }
}

/** A customer with an admin's credit of `dollars`, known to payments and the wallet. */
async function customer(dollars: number): Promise<TestUser> {
  const user = await newUser();
  await money.known(user);
  await money.adminPayment(admin, { user_id: user.id, amount: String(dollars), type: 'IN' }).expect(201);
  await eventually(async () => ((await money.wallet.balance(user)) === dollars ? true : undefined));
  return user;
}

const order = (user: TestUser) =>
  orders.order(user, { product_id: giftCard, quantity: 1, params: 'Account e-mail:a@b.c' }).expect(201);

const longAgo = () => new Date(Date.now() - 3600_000);

describe('npm run reconcile', () => {
  it('finds a store of paid, confirmed and refunded orders and a code sold from stock clean', async () => {
    const user = await customer(10);
    const [kept, accepted, refused] = await Promise.all([order(user), order(user), order(user)]);
    await orders.decide(accepted.body.orderId, 'confirmed', 'CODE-1').expect(200);
    await orders.decide(refused.body.orderId, 'rejected').expect(200);
    expect(kept.status).toBe(201);
    const stocked = await orders.createdProduct('2');
    await orders
      .http()
      .post(`/api/orders/stock/${stocked}/codes`)
      .set(bearer(admin))
      .attach('file', Buffer.from('STOCK-0001\nSTOCK-0002\n'), 'codes.csv')
      .expect(201);
    await orders
      .order(user, { product_id: stocked, quantity: 1, params: 'Account e-mail:a@b.c' })
      .expect(201);
    // Entries younger than a minute count as on their way; age them as time would.
    await money.wallet.db.collection('entries').updateMany({}, { $set: { createdAt: longAgo() } });
    await orders.db.collection('orders').updateMany({}, { $set: { createdAt: longAgo() } });
    await orders.db.collection('order_decisions').updateMany({}, { $set: { at: longAgo() } });
    const { code, lines } = await reconcile();
    expect(lines.filter((l) => l.includes('MISMATCH'))).toEqual([]);
    expect(lines).toContain('codes: 1 sold, all on confirmed orders');
    expect(code).toBe(0);
  });

  it('exits 1 naming each order whose money does not add up, with the amount at stake', async () => {
    const user = await customer(10);
    // Shown as paid, but the wallet never took the money.
    const unpaid = await insertOrder(orders, user, giftCard, { paid: true, params: '', fields: {} });
    // Rejected by an admin, but the refund never happened.
    const rejected = (await order(user)).body.orderId as string;
    await orders.db.collection('order_decisions').insertOne({
      _id: rejected as unknown as Types.ObjectId,
      action: 'rejected',
      replay: null,
      reason: 'Rejected by an admin',
      by: admin.id,
      at: longAgo(),
    });
    await orders.db
      .collection('orders')
      .updateOne(
        { _id: new Types.ObjectId(rejected) },
        { $set: { status: 'rejected', createdAt: longAgo() } },
      );
    await money.wallet.db.collection('entries').updateMany({}, { $set: { createdAt: longAgo() } });

    const { code, lines } = await reconcile();
    expect(code).toBe(1);
    expect(lines).toEqual(
      expect.arrayContaining([
        `  MISMATCH order ${unpaid.toString()} (account ${user.id}) is shown as paid but holds no debit (2.000000 at stake)`,
        `  MISMATCH order ${rejected} (account ${user.id}) was rejected after payment but has no refund (2.000000 at stake)`,
      ]),
    );
    expect(lines.filter((l) => l.includes('MISMATCH'))).toHaveLength(2);
    // The customer still sees only what was really paid.
    const mine = await orders.http().post('/api/orders/myorders').set(bearer(user)).send({}).expect(200);
    expect(mine.body.orders.map((o: { id: string }) => o.id)).toContain(rejected);
  });
});

describe('the nightly reconcile job', () => {
  it('finds what npm run reconcile finds, keeps it as its result and shows it in the metrics', async () => {
    // A wallet instance that knows where payments and orders answer, as under npm start.
    const wallet = await startWallet({
      ...money.wallet.config,
      PORT: 0,
      PAYMENTS_URL: [money.service.url],
      ORDERS_URL: [orders.url()],
    });
    const queue = createQueue(
      QUEUE_NAMES.reconcile,
      wallet.context.redis,
      wallet.context.logger,
      money.wallet.config.QUEUE_PREFIX,
    );
    try {
      const { lines } = await reconcile();
      const expected = lines.filter((l) => l.includes('MISMATCH')).map((l) => l.replace('  MISMATCH ', ''));
      // The store as the test above left it: two orders whose money does not add up.
      expect(expected).toHaveLength(2);
      const job = await queue.add('reconcile', { reason: 'test' });
      const result = await eventually(
        async () => ((await queue.getJob(job.id!))?.returnvalue as ReconcileResult | null) ?? undefined,
        { what: 'the reconcile job to finish', timeoutMs: 60_000 },
      );
      expect(result.mismatches).toBe(2);
      expect(result.problems.sort()).toEqual(expected.sort());
      expect(result.summary).toMatch(/^wallet reconcile: \d+ accounts/);
      const metrics = await supertest(wallet.url).get('/metrics').expect(200);
      expect(metrics.text).toMatch(/^raseed_reconcile_mismatches\{[^}]*\} 2$/m);
    } finally {
      await queue.close();
      await wallet.stop();
    }
  });
});
