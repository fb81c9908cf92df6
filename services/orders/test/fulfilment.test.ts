import type { SimProduct } from '@raseed/supplier-sim';
import { createLogger, createQueue, QUEUE_NAMES, redisConnection } from '@raseed/kit';
import { eventually, readEvents } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import supertest from 'supertest';
import { startOrders } from '../src/service';
import { bearer, startTestOrders, toMicros, type TestOrders, type TestUser } from './support';

let orders: TestOrders;
let user: TestUser;
beforeAll(async () => {
  orders = await startTestOrders();
  user = await orders.customer(500);
});
afterAll(() => orders.stop());

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
async function orderOf(p: SimProduct, buyer = user): Promise<string> {
  const res = await orders
    .order(buyer, {
      product_id: `p-${p.id}`,
      quantity: p.qtyValues?.min ?? 1,
      params: p.params.map((label) => `${label}:player-7`).join(','),
    })
    .expect(201);
  return res.body.orderId as string;
}

const stored = async (id: string) =>
  (await orders.storedOrders({ _id: new Types.ObjectId(id) }))[0] as Record<string, unknown>;
const settled = (id: string) =>
  eventually(
    async () => {
      const order = await stored(id);
      return order.status !== 'waiting' ? order : undefined;
    },
    { what: `order ${id} settled` },
  );
const placedAt = (id: string) =>
  eventually(
    async () => {
      const order = await stored(id);
      if (order.status === 'rejected') throw new Error(`order ${id} was rejected: ${String(order.reason)}`);
      return order.externalId ? order : undefined;
    },
    { what: `order ${id} taken by the supplier` },
  );
const sync = async (url = orders.url()) =>
  (await supertest(url).post('/api/orders/api-sync').set(bearer(orders.admin)).expect(200)).body;
/** The wallet's movements for an order in the order they happened: its debit, and its refund if any. */
const movements = (id: string) =>
  orders.wallet.db
    .collection('entries')
    .find({ key: { $in: [`order:${id}:debit`, `order:${id}:refund`] } })
    .sort({ seq: 1 })
    .toArray();
const atSupplier = (id: string) => orders.sim.placed.filter((o) => o.uuid === id);

describe('supplier orders', () => {
  it('confirms an order the supplier completes at once, with its reply, and announces it', async () => {
    const p = product('complete');
    const id = await orderOf(p);
    const order = await settled(id);
    const [sent] = atSupplier(id);
    expect(order).toMatchObject({ status: 'confirmed', externalId: sent!.orderId });
    expect(order.replay).toBe(p.params.length ? 'Delivered to player-7' : expect.stringMatching(/^\w{4}-/));
    expect(sent).toMatchObject({ productId: p.id, quantity: p.qtyValues?.min ?? 1 });
    expect(atSupplier(id)).toHaveLength(1);
    expect((await movements(id)).map((e) => e.type)).toEqual(['OUT']);

    const mine = await orders.http().post('/api/orders/myorders').set(bearer(user)).send({}).expect(200);
    expect(mine.body.orders.find((o: { id: string }) => o.id === id)).toMatchObject({
      status: 'confirmed',
      order_id: sent!.orderId,
      replay_api: order.replay,
    });
    // Supplier orders are decided by the supplier, never by an admin.
    const refused = await orders.decide(id, 'rejected').expect(409);
    expect(refused.body.error).toBe('This order is fulfilled by the supplier; its status comes from there.');

    const [placed] = await readEvents('order.placed', (e) => e.data.orderId === id);
    expect(placed!.data).toMatchObject({ userId: user.id, productId: `p-${p.id}`, total: order.total });
    const [confirmed] = await readEvents('order.confirmed', (e) => e.data.orderId === id);
    expect(confirmed!.data).toMatchObject({ userId: user.id, replay: order.replay });
  });

  it('keeps an order waiting through 3 status polls and confirms it on the 4th', async () => {
    const id = await orderOf(product('after-polls:3'));
    await placedAt(id);
    for (let poll = 1; poll <= 3; poll++) {
      await sync();
      expect((await stored(id)).status).toBe('waiting');
    }
    const result = await sync();
    expect(result).toMatchObject({ success: true, confirmed: 1, rejected: 0 });
    expect((await stored(id)).status).toBe('confirmed');
    expect(atSupplier(id)[0]!.checks).toBe(4);
  });

  it('rejects an order the supplier rejects, with its reason, and refunds it once', async () => {
    const before = await orders.wallet.balance(user);
    const id = await orderOf(product('reject:Player not found'));
    const order = await settled(id);
    expect(order).toMatchObject({ status: 'rejected', reason: 'Player not found' });
    await sync();
    await sync();
    const entries = await movements(id);
    expect(entries.map((e) => e.type)).toEqual(['OUT', 'IN']);
    expect(await orders.wallet.balance(user)).toBe(before);
    const [rejected] = await readEvents('order.rejected', (e) => e.data.orderId === id);
    expect(rejected!.data).toMatchObject({ reason: 'Player not found', total: order.total });
  });

  it('places an order whose first call timed out once: the retry finds it at the supplier', async () => {
    const id = await orderOf(product('timeout'));
    const taken = await placedAt(id);
    expect(atSupplier(id)).toHaveLength(1);
    expect(taken.externalId).toBe(atSupplier(id)[0]!.orderId);
    const order = await eventually(async () => {
      await sync();
      const now = await stored(id);
      return now.status === 'confirmed' ? now : undefined;
    });
    expect(order.status).toBe('confirmed');
    expect(atSupplier(id)).toHaveLength(1);
    expect((await movements(id)).map((e) => e.type)).toEqual(['OUT']);
  });

  it('rejects and refunds an order the supplier answered 500 to until the tries ran out', async () => {
    const before = await orders.wallet.balance(user);
    const id = await orderOf(product('error500'));
    const order = await settled(id);
    expect(order.status).toBe('rejected');
    expect(order.reason).toMatch(/^The supplier could not take the order: .*500/);
    expect(atSupplier(id)).toHaveLength(0);
    expect((await movements(id)).map((e) => e.type)).toEqual(['OUT', 'IN']);
    expect(await orders.wallet.balance(user)).toBe(before);
  });

  it('rejects and refunds an order the supplier refuses', async () => {
    const before = await orders.wallet.balance(user);
    const p = product('complete');
    const id = await (async () => {
      // Our copy still shows the product; the supplier has just stopped selling it.
      orders.sim.updateProduct(p.id, { available: false });
      return orderOf(p);
    })();
    const order = await settled(id);
    expect(order).toMatchObject({
      status: 'rejected',
      reason: 'The supplier refused the order: Product is not available',
    });
    expect(await orders.wallet.balance(user)).toBe(before);
  });
});

describe("the spec's supplier calls", () => {
  it("answers the supplier's state of its orders to admins only", async () => {
    const id = await orderOf(product('after-polls:50'));
    const { externalId } = await placedAt(id);
    const res = await orders
      .http()
      .get('/external/Apiorders')
      .query({ orderIds: `${externalId as string},999999` })
      .set(bearer(orders.admin))
      .expect(200);
    expect(res.body).toEqual({ data: [{ order_id: externalId, status: 'wait', replay_api: [] }] });
    await orders.http().get('/external/Apiorders').query({ orderIds: '1' }).set(bearer(user)).expect(403);
    const bad = await orders
      .http()
      .get('/external/Apiorders')
      .query({ orderIds: "1,2'--" })
      .set(bearer(orders.admin))
      .expect(400);
    expect(bad.body.error).toBe('orderIds must be up to 100 order ids joined by commas');
  });

  it('places an order again on demand without placing it twice', async () => {
    const id = await orderOf(product('after-polls:50'));
    await placedAt(id);
    const res = await orders
      .http()
      .post('/external/neworder')
      .query({ orderId: id })
      .set(bearer(orders.admin))
      .expect(200);
    expect(res.body).toMatchObject({
      status: 'OK',
      data: { order_id: atSupplier(id)[0]!.orderId, status: 'waiting' },
    });
    expect(atSupplier(id)).toHaveLength(1);
    await orders.http().post('/external/neworder').query({ orderId: id }).set(bearer(user)).expect(403);
    await orders
      .http()
      .post('/external/neworder')
      .query({ orderId: new Types.ObjectId().toString() })
      .set(bearer(orders.admin))
      .expect(404);
  });

  it('confirms each of 120 settled orders (two batches) once when two instances sync them at once', async () => {
    const buyer = await orders.customer(1000);
    const p = product('after-polls:1');
    const ids: string[] = [];
    for (let i = 0; i < 120; i += 20) {
      const batch = Array.from({ length: 20 }, () => orderOf(p, buyer));
      ids.push(...(await Promise.all(batch)));
    }
    for (const id of ids) await placedAt(id);
    await sync(); // every order waits through its first check

    // Each instance's worker takes one of the two sync jobs, as with orders scaled out.
    const second = await startOrders({ ...orders.config, PORT: 0 });
    try {
      const [a, b] = await Promise.all([sync(), sync(second.url)]);
      expect(a.confirmed + b.confirmed).toBe(120);
    } finally {
      await second.stop();
    }
    const wanted = new Set(ids);
    for (const id of ids) expect((await stored(id)).status).toBe('confirmed');
    expect(await orders.db.collection('order_decisions').countDocuments({ _id: { $in: ids } as never })).toBe(
      120,
    );
    expect(await orders.db.collection('order_watch').countDocuments({ _id: { $in: ids } as never })).toBe(
      120,
    );
    // One event per order. Two instances' relays may both send it (at least once); it keeps its
    // id, by which consumers drop the repeat, and so does this count.
    const seen = new Set<string>();
    const confirmed = await readEvents(
      'order.confirmed',
      (e) => wanted.has(e.data.orderId) && !seen.has(e.id) && !!seen.add(e.id),
      { count: 120 },
    );
    expect(confirmed).toHaveLength(120);
    expect(new Set(confirmed.map((e) => e.data.orderId)).size).toBe(120);
  }, 180_000);

  it('never trusts statuses sent to api-sync: only the supplier decides', async () => {
    const id = await orderOf(product('after-polls:50'));
    const { externalId } = await placedAt(id);
    const before = await orders.wallet.balance(user);
    await orders
      .http()
      .post('/api/orders/api-sync')
      .set(bearer(orders.admin))
      .send({ orders: [{ order_id: externalId, status: 'reject', replay_api: [] }] })
      .expect(200);
    expect((await stored(id)).status).toBe('waiting');
    expect(await orders.wallet.balance(user)).toBe(before);
    expect(toMicros(before)).toBeGreaterThan(0);
  });

  it("runs an admin's sync in the status job, never in the request, and answers 502 when the supplier cannot be asked", async () => {
    const id = await orderOf(product('after-polls:1'));
    await placedAt(id);
    const redis = redisConnection(orders.config.REDIS_URL);
    const statuses = createQueue<{ reason: string }>(
      QUEUE_NAMES.orderStatus,
      redis,
      createLogger('test', 'silent'),
      orders.config.QUEUE_PREFIX,
    );
    try {
      const answer = await sync();
      expect(answer).toMatchObject({ success: true, checked: expect.any(Number) });
      const ran = (await statuses.getCompleted()).filter((job) => job.data.reason === 'admin');
      expect(ran.map((job) => job.returnvalue)).toContainEqual({
        checked: answer.checked,
        confirmed: answer.confirmed,
        rejected: answer.rejected,
        disputed: answer.disputed,
      });

      orders.sim.setCheckScenario('error500');
      const refused = await orders.http().post('/api/orders/api-sync').set(bearer(orders.admin)).expect(502);
      expect(refused.body.error).toMatch(/^The supplier could not be reached \(.+\)\.$/);
      orders.sim.setCheckScenario(null);
      expect((await stored(id)).status).toBe('waiting');
      const later = await sync();
      expect(later.confirmed).toBeGreaterThanOrEqual(1);
      expect((await stored(id)).status).toBe('confirmed');
    } finally {
      orders.sim.setCheckScenario(null);
      await statuses.close();
      redis.disconnect();
    }
  });
});
