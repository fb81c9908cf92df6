import { hourKey } from '@raseed/kit';
import type { SimProduct } from '@raseed/supplier-sim';
import { eventually, readEvents } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import { bearer, newUser, startTestOrders, toMicros, type TestOrders, type TestUser } from './support';

/**
 * Issue 15, paths 3 and 4: a supplier that completes an order after we refunded it, or rejects
 * one after its OK (disputes), and orders that wait at the supplier for ever (stuck orders).
 */

/** Orders wait this long before they are stuck (ORDER_STUCK_HOURS takes fractions of an hour). */
const STUCK_SECONDS = 6;
let orders: TestOrders;
let secondAdmin: TestUser;
beforeAll(async () => {
  orders = await startTestOrders({
    // Every placement is its last try: a timeout is refunded at once unless the supplier has the order.
    ORDER_PLACEMENT_ATTEMPTS: '1',
    SUPPLIER_TIMEOUT_MS: '1000',
    ORDER_STUCK_HOURS: String(STUCK_SECONDS / 3600),
  });
  secondAdmin = await newUser('admin');
});
afterAll(() => orders.stop());

const resolved = 'This dispute has already been resolved.';
const used = new Set<number>();
/** An available supplier product no other test here has ordered, with the scenario set for it. */
function product(scenario: string): SimProduct {
  const found = orders.sim.products.find(
    (p) => p.available && !used.has(p.id) && p.priceMicros <= 5_000_000,
  )!;
  used.add(found.id);
  orders.sim.setScenario(found.id, scenario);
  return found;
}

/** Orders the product at its smallest quantity with every param filled in; answers the order id. */
async function orderOf(user: TestUser, p: SimProduct): Promise<string> {
  const res = await orders
    .order(user, {
      product_id: `p-${p.id}`,
      quantity: p.qtyValues?.min ?? 1,
      params: p.params.map((label) => `${label}:player-7`).join(','),
    })
    .expect(201);
  return res.body.orderId as string;
}

/** The reply the simulator gives with a completed order of the product. */
const replyFor = (p: SimProduct) =>
  p.params.length ? 'Delivered to player-7' : expect.stringMatching(/^[0-9A-F]{4}(-[0-9A-F]{4}){3}$/);

const stored = async (id: string) =>
  (await orders.storedOrders({ _id: new Types.ObjectId(id) }))[0] as unknown as Record<string, unknown> & {
    total: number;
  };
const settled = (id: string) =>
  eventually(
    async () => {
      const order = await stored(id);
      return order.status !== 'waiting' ? order : undefined;
    },
    { what: `order ${id} settled` },
  );
const takenBySupplier = (id: string) =>
  eventually(async () => ((await stored(id)).externalId ? true : undefined), {
    what: `order ${id} taken by the supplier`,
  });
const sync = async () =>
  (await orders.http().post('/api/orders/api-sync').set(bearer(orders.admin)).expect(200)).body as {
    disputed: number;
  };
const atSupplier = (id: string) => orders.sim.placed.find((o) => o.uuid === id)!;
/** The wallet's movements for an order, as they happened: its debit, refund and second debit. */
const movements = (id: string) =>
  orders.wallet.db
    .collection('entries')
    .find({ key: { $in: [`order:${id}:debit`, `order:${id}:refund`, `order:${id}-redebit:debit`] } })
    .sort({ seq: 1 })
    .toArray();
const moved = async (id: string) => (await movements(id)).map((e) => [e.type ?? e.kind, e.key, e.amount]);
const debitKey = (id: string) => `order:${id}:debit`;
const refundKey = (id: string) => `order:${id}:refund`;
const redebitKey = (id: string) => `order:${id}-redebit:debit`;

interface Listed {
  id: string;
  status: string;
  replay_api: string | null;
  disputed?: boolean;
  dispute?: { kind: string; supplier_reply: string | null; supplier_order_id: string; actions: string[] };
}
const listed = async (path: string) =>
  (await orders.http().get(path).query({ limit: 100 }).set(bearer(orders.admin)).expect(200)).body
    .orders as Listed[];
const disputedList = () => listed('/api/orders/disputed');
const stuckList = () => listed('/api/orders/stuck');
const resolve = (id: string, action: string, by: TestUser = orders.admin, key?: string) => {
  const req = orders.http().post(`/api/orders/disputed/${id}/resolve`).set(bearer(by)).send({ action });
  return key ? req.set('Idempotency-Key', key) : req;
};
const decideStuck = (id: string, body: object, by: TestUser = orders.admin, key?: string) => {
  const req = orders.http().post(`/api/orders/stuck/${id}`).set(bearer(by)).send(body);
  return key ? req.set('Idempotency-Key', key) : req;
};
const myOrder = async (user: TestUser, id: string) =>
  (
    (await orders.http().post('/api/orders/myorders').set(bearer(user)).send({}).expect(200)).body
      .orders as Listed[]
  ).find((o) => o.id === id);
/** Answers' statuses, sorted: one 200 and the rest 409 when a decision was taken once. */
const statusesOf = (answers: { status: number }[]) => answers.map((r) => r.status).sort();
const onceOf = (n: number) => [200, ...Array.from({ length: n - 1 }, () => 409)];

/**
 * An order the supplier records only after its placement timed out (scenario 'late'): refunded,
 * then disputed once the supplier shows it completed. Answers its id, product and list entry.
 */
async function lateCompletion(user: TestUser) {
  const p = product('late:3');
  const id = await orderOf(user, p);
  const order = await settled(id);
  expect(order).toMatchObject({
    status: 'rejected',
    reason: expect.stringMatching(/^The supplier could not take/),
  });
  const entry = await eventually(
    async () => {
      await sync();
      return (await disputedList()).find((o) => o.id === id);
    },
    { what: `order ${id} disputed` },
  );
  return { id, p, entry, total: order.total };
}

describe('a supplier that completes an order after we refunded it', () => {
  it('is asked again about a timed-out order it did not know yet, and its late completion is disputed with the code', async () => {
    const user = await orders.customer(20);
    const p = product('late:3');
    const id = await orderOf(user, p);
    const order = await settled(id);
    expect(order.status).toBe('rejected');
    expect(await moved(id)).toEqual([
      ['OUT', debitKey(id), order.total],
      ['IN', refundKey(id), order.total],
    ]);
    expect(await orders.wallet.balance(user)).toBe(20);
    expect(await orders.db.collection('order_watch').findOne({ _id: id as never })).toMatchObject({
      until: expect.any(Date),
    });
    // Not recorded yet at the supplier: nothing to dispute.
    expect((await sync()).disputed).toBe(0);
    expect((await disputedList()).map((o) => o.id)).not.toContain(id);

    const entry = await eventually(
      async () => {
        await sync();
        return (await disputedList()).find((o) => o.id === id);
      },
      { what: 'the late completion disputed' },
    );
    expect(entry).toMatchObject({
      status: 'rejected',
      disputed: true,
      dispute: {
        kind: 'completed-after-refund',
        supplier_reply: replyFor(p),
        supplier_order_id: atSupplier(id).orderId,
        actions: ['deliver', 'write-off'],
      },
    });
    // Asked again, the supplier says the same: the dispute is recorded once, and told once.
    await sync();
    expect(await orders.db.collection('order_disputes').countDocuments({ _id: id as never })).toBe(1);
    const told = await readEvents('order.disputed', (e) => e.data.orderId === id);
    expect(told.map((e) => e.data)).toEqual([
      { orderId: id, kind: 'completed-after-refund', supplierOrderId: atSupplier(id).orderId },
    ]);
    expect((await disputedList()).filter((o) => o.id === id)).toHaveLength(1);
    // Nothing moved: the customer keeps the refund until an admin decides.
    expect(await orders.wallet.balance(user)).toBe(20);
    await orders.http().get('/api/orders/disputed').set(bearer(user)).expect(403);
    await resolve(id, 'deliver', user).expect(403);
  });

  it("refuses 'deliver' on a short balance with the wallet's text and records nothing, then delivers once to 20 admins at once", async () => {
    const user = await orders.customer(20);
    const { id, p, total } = await lateCompletion(user);
    // The customer spends the refund elsewhere.
    await orders.wallet
      .internal(`/internal/orders/${new Types.ObjectId().toString()}/debit`, {
        userId: user.id,
        amount: toMicros(20),
        productName: 'Spent elsewhere',
      })
      .expect(200);
    const short = await resolve(id, 'deliver').expect(422);
    expect(short.body).toEqual({
      success: false,
      error: 'Insufficient balance. You have only 0.00$ in your balance',
    });
    expect(await orders.wallet.db.collection('entries').countDocuments({ key: redebitKey(id) })).toBe(0);
    expect(await orders.db.collection('order_resolutions').countDocuments({ _id: id as never })).toBe(0);
    expect((await disputedList()).map((o) => o.id)).toContain(id);

    await orders.topUp(user, 10);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => resolve(id, 'deliver', i % 2 ? secondAdmin : orders.admin)),
    );
    expect(statusesOf(answers)).toEqual(onceOf(20));
    expect(answers.find((r) => r.status === 200)!.body).toMatchObject({
      success: true,
      message: "The customer was charged again and now sees the supplier's code in My Orders.",
    });
    for (const r of answers.filter((a) => a.status === 409))
      expect(r.body).toEqual({ success: false, error: resolved });
    expect(await moved(id)).toEqual([
      ['OUT', debitKey(id), total],
      ['IN', refundKey(id), total],
      ['OUT', redebitKey(id), total],
    ]);
    expect(await orders.wallet.balance(user)).toBeCloseTo(10 - total / 1e6, 6);
    expect(await myOrder(user, id)).toMatchObject({ status: 'confirmed', replay_api: replyFor(p) });
    expect(await stored(id)).toMatchObject({ status: 'confirmed', externalId: atSupplier(id).orderId });
    expect((await disputedList()).map((o) => o.id)).not.toContain(id);
    expect((await resolve(id, 'write-off').expect(409)).body.error).toBe(resolved);
    const [confirmed] = await readEvents('order.confirmed', (e) => e.data.orderId === id);
    expect(confirmed!.data).toMatchObject({ userId: user.id, total, replay: (await stored(id)).replay });
  });

  it('writes a dispute off once, and takes one resolution when 20 admins race with both', async () => {
    const user = await orders.customer(40);
    const [writtenOff, raced] = await Promise.all([lateCompletion(user), lateCompletion(user)]);
    const balance = await orders.wallet.balance(user);

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        resolve(writtenOff.id, 'write-off', i % 2 ? secondAdmin : orders.admin),
      ),
    );
    expect(statusesOf(answers)).toEqual(onceOf(20));
    expect(answers.find((r) => r.status === 200)!.body.message).toBe(
      'The cost has been written off: nothing was charged or refunded.',
    );
    expect(await stored(writtenOff.id)).toMatchObject({ status: 'rejected', replay: null });
    expect(
      (await orders.wallet.db.collection('entries').findOne({ key: redebitKey(writtenOff.id) }))!.kind,
    ).toBe('void');
    expect((await resolve(writtenOff.id, 'deliver').expect(409)).body.error).toBe(resolved);
    expect(await orders.wallet.balance(user)).toBe(balance);

    const race = await Promise.all(
      Array.from({ length: 20 }, (_, i) => resolve(raced.id, i % 2 ? 'deliver' : 'write-off', orders.admin)),
    );
    expect(statusesOf(race)).toEqual(onceOf(20));
    const won = race.find((r) => r.status === 200)!;
    const second = await orders.wallet.db
      .collection('entries')
      .find({ key: redebitKey(raced.id) })
      .toArray();
    expect(second).toHaveLength(1);
    if (won.body.message.startsWith('The customer was charged again')) {
      expect(second[0]).toMatchObject({ kind: 'movement', type: 'OUT', amount: raced.total });
      expect(await stored(raced.id)).toMatchObject({
        status: 'confirmed',
        replay: raced.entry.dispute!.supplier_reply,
      });
      expect(await orders.wallet.balance(user)).toBeCloseTo(balance - raced.total / 1e6, 6);
    } else {
      expect(second[0]).toMatchObject({ kind: 'void', amount: 0 });
      expect(await stored(raced.id)).toMatchObject({ status: 'rejected' });
      expect(await orders.wallet.balance(user)).toBe(balance);
    }
    const left = (await disputedList()).map((o) => o.id);
    expect(left).not.toContain(writtenOff.id);
    expect(left).not.toContain(raced.id);
  });

  it('stops asking about a refunded order once its watch has run out', async () => {
    const user = await orders.customer(10);
    const id = await orderOf(user, product('late:3'));
    expect((await settled(id)).status).toBe('rejected');
    const watch = await orders.db.collection('order_watch').findOne({ _id: id as never });
    const hours = (watch!.until.getTime() - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    await orders.db
      .collection('order_watch')
      .updateOne({ _id: id as never }, { $set: { until: new Date(Date.now() - 1000) } });
    await new Promise((r) => setTimeout(r, 3500));
    const checks = atSupplier(id).checks;
    await sync();
    await sync();
    expect(atSupplier(id).checks).toBe(checks);
    // The supplier has completed it by now: only the watch running out keeps it from a dispute.
    expect(atSupplier(id).placedAt.getTime() + 3000).toBeLessThan(Date.now());
    expect(await orders.db.collection('order_watch').countDocuments({ _id: id as never })).toBe(0);
    expect(await orders.db.collection('order_disputes').countDocuments({ _id: id as never })).toBe(0);
  });

  it('disputes a late completion only once the refund a crash cut off has been made', async () => {
    const user = await orders.customer(20);
    const p = product('after-polls:1000');
    const id = await orderOf(user, p);
    await takenBySupplier(id);
    const { total } = await stored(id);
    // Giving up was cut off right after its decision's insert, before the refund (the wallet was
    // away): the decision says rejected, the order still waits, the customer is still debited.
    await orders.db.collection('order_decisions').insertOne({
      _id: id as never,
      action: 'rejected',
      replay: null,
      reason: 'The supplier could not take the order',
      by: 'supplier',
      at: new Date(),
    });
    await orders.db
      .collection('order_watch')
      .insertOne({ _id: id as never, until: new Date(Date.now() + 3600_000) });
    atSupplier(id).outcome = { kind: 'complete' };

    // What the supplier says contradicts no refund yet: nothing is disputed, no money moves.
    expect((await sync()).disputed).toBe(0);
    expect((await disputedList()).map((o) => o.id)).not.toContain(id);
    expect(await moved(id)).toEqual([['OUT', debitKey(id), total]]);

    // The repair (at start-up here) finishes the decision: the refund, then the status.
    await orders.db
      .collection('orders')
      .updateOne({ _id: new Types.ObjectId(id) }, { $set: { createdAt: new Date(Date.now() - 60_000) } });
    await orders.restart();
    expect(await stored(id)).toMatchObject({ status: 'rejected' });
    expect(await orders.wallet.balance(user)).toBe(20);

    expect((await sync()).disputed).toBe(1);
    await resolve(id, 'deliver').expect(200);
    expect(await moved(id)).toEqual([
      ['OUT', debitKey(id), total],
      ['IN', refundKey(id), total],
      ['OUT', redebitKey(id), total],
    ]);
    expect(await orders.wallet.balance(user)).toBe(20 - total / 1_000_000);
  });

  it('finishes at start-up a delivery the wallet took but whose record a crash cut off', async () => {
    const user = await orders.customer(10);
    const id = new Types.ObjectId();
    const orderId = id.toString();
    await orders.db.collection('orders').insertOne({
      _id: id,
      userId: user.id,
      username: user.username,
      productId: 'p-1',
      productName: 'Gift card',
      kind: 'supplier',
      supplierId: '1',
      quantity: 1,
      unitPrice: toMicros(2),
      total: toMicros(2),
      params: '',
      fields: {},
      status: 'rejected',
      paid: true,
      failed: null,
      fingerprint: null,
      replay: null,
      externalId: null,
      reason: 'The supplier could not take the order',
      createdAt: new Date(Date.now() - 60_000),
      hour: hourKey(new Date(Date.now() - 60_000)),
      decidedAt: new Date(),
    });
    await orders.db.collection('order_disputes').insertOne({
      _id: orderId as never,
      kind: 'completed-after-refund',
      supplierReply: 'CODE-LATE',
      supplierOrderId: '777',
      at: new Date(),
      resolution: null,
    });
    await orders.wallet
      .internal(`/internal/orders/${orderId}-redebit/debit`, {
        userId: user.id,
        amount: toMicros(2),
        productName: 'Gift card',
      })
      .expect(200);

    await orders.restart();

    expect(await stored(orderId)).toMatchObject({
      status: 'confirmed',
      replay: 'CODE-LATE',
      externalId: '777',
    });
    expect(await orders.db.collection('order_resolutions').findOne({ _id: orderId as never })).toMatchObject({
      action: 'deliver',
      by: 'repair',
    });
    expect((await disputedList()).map((o) => o.id)).not.toContain(orderId);
    expect(await orders.wallet.balance(user)).toBe(8);
  });
});

describe('a supplier that rejects an order after its OK', () => {
  it('is disputed, and refunded once when 20 admins ask at once', async () => {
    const user = await orders.customer(20);
    const p = product('ok-then-reject');
    const id = await orderOf(user, p);
    const order = await settled(id);
    expect(order).toMatchObject({ status: 'confirmed', replay: replyFor(p) });
    expect((await sync()).disputed).toBeGreaterThanOrEqual(1);
    const entry = (await disputedList()).find((o) => o.id === id);
    expect(entry).toMatchObject({
      status: 'confirmed',
      disputed: true,
      dispute: {
        kind: 'rejected-after-ok',
        supplier_reply: 'Cancelled by the supplier',
        supplier_order_id: atSupplier(id).orderId,
        actions: ['refund', 'write-off'],
      },
    });
    const wrong = await resolve(id, 'deliver').expect(400);
    expect(wrong.body.error).toBe(
      "The supplier rejected this order after completing it: resolve it by 'refund' or 'write-off'.",
    );

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => resolve(id, 'refund', i % 2 ? secondAdmin : orders.admin)),
    );
    expect(statusesOf(answers)).toEqual(onceOf(20));
    expect(answers.find((r) => r.status === 200)!.body.message).toBe(
      'The order has been refunded to the customer.',
    );
    expect(await moved(id)).toEqual([
      ['OUT', debitKey(id), order.total],
      ['IN', refundKey(id), order.total],
    ]);
    expect(await orders.wallet.balance(user)).toBe(20);
    const reason =
      'The supplier cancelled this order after completing it (Cancelled by the supplier). It has been refunded.';
    expect(await stored(id)).toMatchObject({ status: 'rejected', reason });
    expect(await myOrder(user, id)).toMatchObject({ status: 'rejected' });
    expect((await resolve(id, 'write-off').expect(409)).body.error).toBe(resolved);
    expect((await disputedList()).map((o) => o.id)).not.toContain(id);
    const [rejected] = await readEvents('order.rejected', (e) => e.data.orderId === id);
    expect(rejected!.data).toMatchObject({ userId: user.id, total: order.total, reason });
  });

  it('answers the same admin retrying with one Idempotency-Key with the first outcome, and refuses the key for another request', async () => {
    const user = await orders.customer(20);
    const id = await orderOf(user, product('ok-then-reject'));
    await settled(id);
    await eventually(async () => {
      await sync();
      return (await disputedList()).find((o) => o.id === id);
    });
    const key = new Types.ObjectId().toString();
    const first = await resolve(id, 'write-off', orders.admin, key).expect(200);
    const again = await resolve(id, 'write-off', orders.admin, key).expect(200);
    expect(again.body).toEqual(first.body);
    // Another admin's equal key is another request; another request under the key is refused.
    expect((await resolve(id, 'write-off', secondAdmin, key).expect(409)).body.error).toBe(resolved);
    const reused = await resolve(id, 'refund', orders.admin, key).expect(422);
    expect(reused.body).toEqual({
      success: false,
      error: 'This Idempotency-Key was used for a different request.',
    });
    expect(await stored(id)).toMatchObject({ status: 'confirmed' });
    expect(await orders.wallet.db.collection('entries').countDocuments({ key: refundKey(id) })).toBe(0);
  });
});

describe('orders stuck at the supplier', () => {
  const stuckText = `Only supplier orders waiting longer than ${STUCK_SECONDS} seconds can be decided here.`;
  const stuck = (id: string) =>
    eventually(async () => ((await stuckList()).some((o) => o.id === id) ? true : undefined), {
      what: `order ${id} stuck`,
    });

  it('lists a paid supplier order still waiting only after ORDER_STUCK_HOURS, to admins only', async () => {
    const user = await orders.customer(20);
    const id = await orderOf(user, product('wait'));
    // Asked at once, well within STUCK_SECONDS however busy the machine.
    expect((await stuckList()).map((o) => o.id)).not.toContain(id);
    expect((await decideStuck(id, { action: 'rejected' }).expect(409)).body.error).toBe(stuckText);
    const created = await orders.createdProduct('1');
    const byHand = (
      await orders
        .order(user, { product_id: created, quantity: 1, params: 'Account e-mail:a@b.c' })
        .expect(201)
    ).body.orderId as string;

    await takenBySupplier(id);
    await stuck(id);
    const later = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const filtered = await orders
      .http()
      .get('/api/orders/stuck')
      .query({ from: later })
      .set(bearer(orders.admin))
      .expect(200);
    expect(filtered.body.orders.map((o: Listed) => o.id)).not.toContain(id);
    const list = await stuckList();
    expect(list.find((o) => o.id === id)).toMatchObject({
      status: 'waiting',
      order_id: atSupplier(id).orderId,
    });
    // An order an admin decides by hand is not the supplier's: it is never stuck.
    expect(list.map((o) => o.id)).not.toContain(byHand);
    // The admins are told once (order.stuck, within a repair round of 30 s).
    const told = await readEvents('order.stuck', (e) => [id, byHand].includes(e.data.orderId), {
      timeoutMs: 45_000,
      settleMs: 2_000,
    });
    expect(told.map((e) => e.data)).toEqual([
      expect.objectContaining({ orderId: id, userId: user.id, productName: expect.any(String) }),
    ]);
    expect((await decideStuck(byHand, { action: 'rejected' }).expect(409)).body.error).toBe(stuckText);
    await orders.http().get('/api/orders/stuck').set(bearer(user)).expect(403);
    await decideStuck(id, { action: 'rejected' }, user).expect(403);
    const bad = await decideStuck(id, { action: 'maybe' }).expect(400);
    expect(bad.body.error).toBe("The action must be 'confirmed' or 'rejected'.");
    await decideStuck(new Types.ObjectId().toString(), { action: 'rejected' }).expect(404);
  });

  it('asks the supplier one last time, then rejects once when 20 admins act at once, refunding once', async () => {
    const user = await orders.customer(20);
    const id = await orderOf(user, product('wait'));
    const { total } = await stored(id);
    await takenBySupplier(id);
    await stuck(id);
    const checks = atSupplier(id).checks;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        decideStuck(id, { action: 'rejected' }, i % 2 ? secondAdmin : orders.admin),
      ),
    );
    expect(statusesOf(answers)).toEqual(onceOf(20));
    expect(answers.find((r) => r.status === 200)!.body).toMatchObject({
      success: true,
      message: 'Order has been rejected.',
    });
    for (const r of answers.filter((a) => a.status === 409)) {
      expect(r.body).toEqual({ success: false, error: 'This order has already been rejected.' });
    }
    expect(atSupplier(id).checks).toBeGreaterThan(checks);
    expect(await stored(id)).toMatchObject({ status: 'rejected', reason: 'Rejected by an admin' });
    expect(await moved(id)).toEqual([
      ['OUT', debitKey(id), total],
      ['IN', refundKey(id), total],
    ]);
    expect(await orders.wallet.balance(user)).toBe(20);
    expect((await stuckList()).map((o) => o.id)).not.toContain(id);
  });

  it("applies the supplier's last answer instead of the admin's decision, and says so", async () => {
    const user = await orders.customer(20);
    const p = product('after-polls:0');
    const id = await orderOf(user, p);
    const { total } = await stored(id);
    await takenBySupplier(id);
    await stuck(id);
    const res = await decideStuck(id, { action: 'rejected' }).expect(409);
    const order = await stored(id);
    expect(order).toMatchObject({ status: 'confirmed', replay: replyFor(p) });
    expect(res.body).toEqual({
      success: false,
      error: `The supplier completed this order meanwhile (reply: ${order.replay as string}); it has been confirmed with the supplier's reply.`,
    });
    expect(await moved(id)).toEqual([['OUT', debitKey(id), total]]);
    expect(await orders.wallet.balance(user)).toBeCloseTo(20 - total / 1e6, 6);
    expect((await decideStuck(id, { action: 'rejected' }).expect(409)).body.error).toBe(
      'This order has already been confirmed.',
    );
  });

  it('takes the admin’s decision when the supplier cannot be reached, and disputes a completion that comes after', async () => {
    const user = await orders.customer(20);
    const [accepted, rejected] = [
      await orderOf(user, product('wait')),
      await orderOf(user, product('after-polls:1')),
    ];
    await Promise.all([takenBySupplier(accepted), takenBySupplier(rejected)]);
    await Promise.all([stuck(accepted), stuck(rejected)]);
    orders.sim.setCheckScenario('error500');
    try {
      const ok = await decideStuck(accepted, { action: 'confirmed', replay: 'MANUAL-CODE-1' }).expect(200);
      expect(ok.body).toMatchObject({ success: true, message: 'Order has been accepted.' });
      await decideStuck(rejected, { action: 'rejected' }).expect(200);
    } finally {
      orders.sim.setCheckScenario(null);
    }
    expect(await myOrder(user, accepted)).toMatchObject({ status: 'confirmed', replay_api: 'MANUAL-CODE-1' });
    expect(await myOrder(user, rejected)).toMatchObject({ status: 'rejected' });
    expect(await orders.wallet.db.collection('entries').countDocuments({ key: refundKey(rejected) })).toBe(1);

    // Back up, the supplier completes the order the admin refunded: that is a dispute.
    const entry = await eventually(async () => {
      await sync();
      return (await disputedList()).find((o) => o.id === rejected);
    });
    expect(entry!.dispute).toMatchObject({
      kind: 'completed-after-refund',
      supplier_order_id: atSupplier(rejected).orderId,
    });
    expect((await disputedList()).map((o) => o.id)).not.toContain(accepted);
  });

  it('answers the same admin retrying with one Idempotency-Key with the first outcome', async () => {
    const user = await orders.customer(20);
    const id = await orderOf(user, product('wait'));
    await takenBySupplier(id);
    await stuck(id);
    const key = new Types.ObjectId().toString();
    const body = { action: 'confirmed', replay: 'CODE-BY-HAND' };
    const first = await decideStuck(id, body, orders.admin, key).expect(200);
    const again = await decideStuck(id, body, orders.admin, key).expect(200);
    expect(again.body).toEqual(first.body);
    expect((await decideStuck(id, body, secondAdmin, key).expect(409)).body.error).toBe(
      'This order has already been confirmed.',
    );
    const reused = await decideStuck(id, { action: 'rejected' }, orders.admin, key).expect(422);
    expect(reused.body.error).toBe('This Idempotency-Key was used for a different request.');
    expect(await orders.wallet.db.collection('entries').countDocuments({ key: refundKey(id) })).toBe(0);
  });
});
