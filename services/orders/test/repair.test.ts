import { keyedId } from '@raseed/kit';
import { Types } from 'mongoose';
import { eventually, readEvents } from '@raseed/kit/testing';
import { insertOrder, startTestOrders, toMicros, type TestOrders, type TestUser } from './support';

let orders: TestOrders;
let user: TestUser;
let giftCard: string;
beforeAll(async () => {
  orders = await startTestOrders({ ORDER_REPAIR_AFTER_SECONDS: '1' });
  user = await orders.customer(50);
  giftCard = await orders.createdProduct('2');
});
afterAll(() => orders.stop());

const longAgo = () => new Date(Date.now() - 60_000);

/** An order as placement records it before the wallet is asked, left where a crash cut it off. */
const cutOffOrder = (extra: Record<string, unknown> = {}) => insertOrder(orders, user, giftCard, extra);

const debit = (orderId: string, dollars = 2) =>
  orders.wallet
    .internal(`/internal/orders/${orderId}/debit`, {
      userId: user.id,
      amount: toMicros(dollars),
      productName: 'Gift card',
    })
    .expect(200);
const stored = async (id: string) =>
  (await orders.storedOrders({ _id: new Types.ObjectId(id) }))[0] as Record<string, unknown>;
const refunds = async (id: string) =>
  orders.wallet.db.collection('entries').countDocuments({ key: `order:${id}:refund` });

describe('repairing what a crash cut off, at start-up', () => {
  it('finishes or undoes every cut-off placement and decision, once', async () => {
    // Debited by the wallet, but the crash came before the order was marked paid.
    const debited = await cutOffOrder();
    await debit(debited);
    // Recorded, but the crash came before the wallet was asked.
    const unasked = await cutOffOrder();
    // Paid and shown, then rejected by an admin; the crash came before the refund.
    const rejected = await cutOffOrder({ paid: true });
    await debit(rejected);
    await orders.db.collection('order_decisions').insertOne({
      _id: rejected as unknown as Types.ObjectId,
      action: 'rejected',
      replay: null,
      reason: 'Rejected by an admin',
      by: orders.admin.id,
      at: longAgo(),
      applied: false,
    });
    // A paid supplier order whose placement job was lost with the crash.
    const p = orders.sim.products.find((x) => x.available && x.params.length === 1 && !x.qtyValues)!;
    orders.sim.setScenario(p.id, 'complete');
    const lost = await cutOffOrder({
      paid: true,
      kind: 'supplier',
      productId: `p-${p.id}`,
      supplierId: String(p.id),
      params: `${p.params[0]}:player-9`,
      fields: { [p.params[0]!]: 'player-9' },
    });
    await debit(lost);
    const balance = await orders.wallet.balance(user);
    expect(balance).toBe(44);

    await orders.restart();

    expect(await stored(debited)).toMatchObject({ paid: true, status: 'waiting' });
    expect(await stored(unasked)).toMatchObject({
      paid: false,
      failed: { status: 409, error: 'The order could not be completed. Please try again.' },
    });
    expect(await stored(rejected)).toMatchObject({ status: 'rejected', reason: 'Rejected by an admin' });
    expect(await refunds(rejected)).toBe(1);
    const placed = await eventually(async () => {
      const order = await stored(lost);
      return order.status === 'confirmed' ? order : undefined;
    });
    expect(placed.replay).toBe('Delivered to player-9');
    expect(orders.sim.placed.filter((o) => o.uuid === lost)).toHaveLength(1);
    expect(await orders.wallet.balance(user)).toBe(46);

    // Shown orders are the paid ones: the one the wallet never took stays hidden.
    const mine = await orders
      .http()
      .post('/api/orders/myorders')
      .set({ Authorization: `Bearer ${user.token}` });
    expect(mine.body.orders.map((o: { id: string }) => o.id).sort()).toEqual(
      [debited, rejected, lost].sort(),
    );

    // A second start finds nothing left to do: no second refund, no second supplier order.
    await orders.restart();
    expect(await refunds(rejected)).toBe(1);
    expect(orders.sim.placed.filter((o) => o.uuid === lost)).toHaveLength(1);
    expect(await orders.wallet.balance(user)).toBe(46);
  });
});

describe("a paid order's order.placed", () => {
  it('is born with its debit, and a repair that finds the debit again announces the same event', async () => {
    const key = new Types.ObjectId().toString();
    const placed = await orders
      .order(user, { product_id: giftCard, quantity: 1, params: 'Account e-mail:a@b.c' }, key)
      .expect(201);
    const id = placed.body.orderId as string;
    // Shown paid with no fate record: the debit's entry decided it and carries its event.
    expect(await stored(id)).toMatchObject({ paid: true });
    expect(await orders.db.collection('order_fates').countDocuments({ _id: id as never })).toBe(0);
    const [entry] = await orders.wallet.db
      .collection('entries')
      .find({ key: `order:${id}:debit` })
      .toArray();
    expect((entry!.events as { type: string; id: string }[]).map((e) => [e.type, e.id])).toEqual([
      ['wallet.debited', expect.any(String)],
      ['order.placed', `order.placed:${id}`],
    ]);

    // As if the order had been cut off after its debit, before it was shown, a while ago.
    await orders.db
      .collection('orders')
      .updateOne({ _id: new Types.ObjectId(id) }, { $set: { paid: false, createdAt: longAgo() } });
    await orders.restart();
    expect(await stored(id)).toMatchObject({ paid: true });
    expect(await orders.db.collection('order_fates').findOne({ _id: id as never })).toMatchObject({
      fate: 'paid',
    });
    // However many times it is sent, it is one event to its consumers.
    const heard = await readEvents('order.placed', (e) => e.data.orderId === id, { settleMs: 2000 });
    expect(new Set(heard.map((e) => e.id))).toEqual(new Set([`order.placed:${id}`]));
  });
});

describe("an unpaid order's fate, decided once by the wallet's key", () => {
  const cutOffText = 'The order could not be completed. Please try again.';
  const draft = { product_id: '', quantity: 1, params: 'Account e-mail:a@b.c' };

  it('moves nothing for a debit that arrives after the repair gave up, and every retry says so', async () => {
    const key = new Types.ObjectId().toString();
    const id = keyedId(user.id, key);
    await cutOffOrder({ _id: new Types.ObjectId(id) });
    const before = await orders.wallet.balance(user);

    await orders.restart();
    expect(await stored(id)).toMatchObject({ paid: false, failed: { status: 409, error: cutOffText } });

    // The placement that stalled before calling the wallet wakes up and asks for its debit.
    const late = await orders.wallet.internal(`/internal/orders/${id}/debit`, {
      userId: user.id,
      amount: toMicros(2),
      productName: 'Gift card',
    });
    expect(late.status).toBe(409);
    expect(await orders.wallet.balance(user)).toBe(before);
    // The customer's retry with the same key is told the same, and is not charged either.
    const retry = await orders.order(user, { ...draft, product_id: giftCard }, key).expect(409);
    expect(retry.body).toEqual({ orderStatus: false, error: cutOffText });
    expect(await orders.wallet.balance(user)).toBe(before);
    expect(await stored(id)).toMatchObject({ paid: false });
  });

  it('shows every order whose debit won the race with the repair, and charges none whose void won', async () => {
    await orders.topUp(user, 60);
    const ids = await Promise.all(Array.from({ length: 30 }, () => cutOffOrder()));
    const before = await orders.wallet.balance(user);
    // The repair runs at start while 30 stalled placements ask for their debits.
    const [, ...late] = await Promise.all([
      orders.restart(),
      ...ids.map(async (id, i) => {
        await new Promise((r) => setTimeout(r, i * 5));
        return (
          await orders.wallet.internal(`/internal/orders/${id}/debit`, {
            userId: user.id,
            amount: toMicros(2),
            productName: 'Gift card',
          })
        ).status;
      }),
    ]);
    expect(late.filter((status) => status !== 200 && status !== 409)).toEqual([]);
    const debited = ids.filter((_, i) => late[i] === 200);
    // A debit that won before the repair looked is shown by the repair (or by the next one).
    await orders.restart();
    for (const id of ids) {
      const order = await stored(id);
      expect(order.paid).toBe(debited.includes(id));
      if (!order.paid) expect(order.failed).toEqual({ status: 409, error: cutOffText });
    }
    expect(await orders.wallet.balance(user)).toBe(before - 2 * debited.length);
  });
});
