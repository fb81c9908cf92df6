import { redisConnection, ServiceClient } from '@raseed/kit';
import { eventually, publishEvents } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import type * as prom from 'prom-client';
import { CatalogPrices } from '../src/domain/prices';
import { bearer, newUser, startTestOrders, toMicros, type TestOrders, type TestUser } from './support';

let orders: TestOrders;
/** A created product at $1 with one param, 'Account e-mail'. */
let giftCard: string;
beforeAll(async () => {
  orders = await startTestOrders();
  giftCard = await orders.createdProduct('1');
});
afterAll(() => orders.stop());

const insufficient = (dollars: string) => `Insufficient balance. You have only ${dollars}$ in your balance`;
const draft = (extra: object = {}) => ({
  product_id: giftCard,
  quantity: 1,
  params: 'Account e-mail:player@example.com',
  ...extra,
});

/** What the wallet's ledger holds for an order, in the order it happened: its debit and refund entries. */
async function movements(orderId: string) {
  return orders.wallet.db
    .collection('entries')
    .find({ key: { $in: [`order:${orderId}:debit`, `order:${orderId}:refund`] } })
    .sort({ seq: 1 })
    .toArray();
}

describe('placing an order', () => {
  it('prices it on the server, debits the wallet once and lists it in My Orders', async () => {
    const user = await orders.customer(5);
    const res = await orders.order(user, draft({ quantity: 3 })).expect(201);
    expect(res.body).toEqual({
      orderStatus: true,
      message: 'Order placed successfully!',
      orderId: expect.stringMatching(/^[0-9a-f]{24}$/),
      balance: 2,
    });
    expect(await orders.wallet.balance(user)).toBe(2);
    const mine = await orders.http().post('/api/orders/myorders').set(bearer(user)).send({}).expect(200);
    expect(mine.body.orders).toEqual([
      expect.objectContaining({
        id: res.body.orderId,
        user_id: user.id,
        username: user.username,
        product_id: giftCard,
        quantity: 3,
        total_price: 3,
        status: 'waiting',
        params: 'Account e-mail:player@example.com',
        replay_api: null,
        order_id: null,
      }),
    ]);
    expect(mine.body.totalPages).toBe(1);
    const entries = await movements(res.body.orderId);
    expect(entries.map((e) => [e.type, e.amount])).toEqual([['OUT', toMicros(3)]]);
  });

  it('lets exactly 100 of 200 concurrent $1 orders through a $100 balance', async () => {
    const user = await orders.customer(100);
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => orders.order(user, draft()).then((r) => r)),
    );
    const placed = answers.filter((r) => r.status === 201);
    const refused = answers.filter((r) => r.status !== 201);
    expect(placed).toHaveLength(100);
    expect(refused).toHaveLength(100);
    for (const r of refused) {
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ orderStatus: false, error: expect.stringMatching(/^Insufficient balance/) });
    }
    expect(await orders.wallet.balance(user)).toBe(0);
    // Every shown order was debited exactly once, and no refused one was.
    const stored = await orders.storedOrders({ userId: user.id });
    const paid = stored.filter((o) => o.paid);
    expect(paid).toHaveLength(100);
    expect(new Set(placed.map((r) => r.body.orderId))).toEqual(new Set(paid.map((o) => o._id.toString())));
    const debits = await orders.wallet.db
      .collection('entries')
      .find({ account: user.id, type: 'OUT' })
      .toArray();
    expect(debits).toHaveLength(100);
    expect(new Set(debits.map((e) => e.key))).toEqual(
      new Set(paid.map((o) => `order:${o._id.toString()}:debit`)),
    );
    const count = await orders.http().post('/api/orders/myorders').set(bearer(user)).send({}).expect(200);
    expect(count.body.totalPages).toBe(10);
    const report = await orders.reconcile();
    expect(report.problems).toEqual([]);
    expect(report.payments).toBeGreaterThanOrEqual(1);
  });

  it('answers a request repeated with one Idempotency-Key with the first outcome: one order, one debit', async () => {
    const user = await orders.customer(10);
    const key = new Types.ObjectId().toString();
    const answers = await Promise.all(Array.from({ length: 5 }, () => orders.order(user, draft(), key)));
    const ids = new Set(answers.map((r) => r.body.orderId));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(ids.size).toBe(1);
    const again = await orders.order(user, draft(), key).expect(201);
    expect(again.body.orderId).toBe([...ids][0]);
    expect(await orders.storedOrders({ userId: user.id })).toHaveLength(1);
    expect(await movements([...ids][0] as string)).toHaveLength(1);
    expect(await orders.wallet.balance(user)).toBe(9);

    // The key is the customer's own: another customer's same key is another order.
    const other = await orders.customer(10);
    const theirs = await orders.order(other, draft(), key).expect(201);
    expect(theirs.body.orderId).not.toBe(again.body.orderId);
  });

  it('repeats a refusal for the same key, and a new key after a top-up succeeds', async () => {
    const user = await orders.customer(0);
    const short = await orders.order(user, draft(), 'k-1').expect(400);
    expect(short.body.error).toBe('The Idempotency-Key header must be 8 to 100 letters, digits, - or _.');
    const first = await orders.order(user, draft(), 'order-key-1').expect(422);
    expect(first.body.error).toBe(insufficient('0.00'));
    const again = await orders.order(user, draft(), 'order-key-1').expect(422);
    expect(again.body).toEqual(first.body);
    await orders.topUp(user, 1);
    expect((await orders.order(user, draft(), 'order-key-1').expect(422)).body).toEqual(first.body);
    await orders.order(user, draft(), 'order-key-2').expect(201);
    expect(await orders.wallet.balance(user)).toBe(0);
  });

  it('ignores a forged price, total, username or user id', async () => {
    const user = await orders.customer(10);
    const victim = await newUser();
    const res = await orders
      .order(
        user,
        draft({
          price: 0.01,
          total_price: 0.01,
          username: victim.username,
          user_id: victim.id,
          userId: victim.id,
          status: 'confirmed',
          quantity: 2,
        }),
      )
      .expect(201);
    const [stored] = await orders.storedOrders({ _id: new Types.ObjectId(res.body.orderId as string) });
    expect(stored).toMatchObject({
      userId: user.id,
      username: user.username,
      total: toMicros(2),
      status: 'waiting',
    });
    expect(await orders.wallet.balance(user)).toBe(8);
  });

  it('refuses an unavailable product, a missing param and a quantity out of limits with the spec texts, debiting nothing', async () => {
    const user = await orders.customer(100);
    const supplier = orders.sim.products.find((p) => p.available && p.qtyValues && p.params.length)!;
    const { min, max } = supplier.qtyValues!;
    const supplierDraft = (quantity: unknown, params = `${supplier.params[0]}:x`) => ({
      product_id: `p-${supplier.id}`,
      quantity,
      params,
    });
    const cases: [object, string][] = [
      [draft({ params: '' }), 'Please fill all required fields.'],
      [draft({ params: 'Account e-mail:   ' }), 'Please fill all required fields.'],
      [supplierDraft(min - 1), `Quantity must be between ${min} and ${max}`],
      [supplierDraft(max + 1), `Quantity must be between ${min} and ${max}`],
      [supplierDraft(min + 0.5), `Quantity must be between ${min} and ${max}`],
      [draft({ quantity: 0 }), 'Quantity must be between 1 and 100'],
      [draft({ quantity: 'two' }), 'Quantity must be a whole number'],
      [draft({ product_id: 'c-000000000000000000000000' }), 'Product not found'],
      [draft({ product_id: 'x; drop' }), 'Product not found'],
    ];
    for (const [body, error] of cases) {
      const res = await orders.order(user, body);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: { orderStatus: false, error },
      });
    }

    const offline = await orders.createdProduct('1');
    await orders.catalog
      .http()
      .put(`/api/products/${offline}/availability`)
      .set(bearer(orders.admin))
      .send({ available: false })
      .expect(200);
    const res = await orders.order(user, draft({ product_id: offline })).expect(400);
    expect(res.body).toEqual({ orderStatus: false, error: 'This product is not available right now.' });

    expect(await orders.storedOrders({ userId: user.id })).toHaveLength(0);
    expect(await orders.wallet.balance(user)).toBe(100);
  });

  it('needs a signed-in user, and keeps the lists and figures to their owners and admins', async () => {
    const user = await orders.customer(5);
    const other = await orders.customer(0);
    const { body } = await orders.order(user, draft()).expect(201);
    await orders.http().post('/api/orders').send(draft()).expect(401);
    await orders.http().get('/api/orders').set(bearer(user)).expect(403);
    await orders.http().get('/api/orders/stats').set(bearer(user)).expect(403);
    await orders.decide(body.orderId as string, 'rejected', undefined, user).expect(403);
    await orders.http().post('/api/orders/api-sync').set(bearer(user)).expect(403);
    const theirs = await orders
      .http()
      .post('/api/orders/myorders')
      .set(bearer(other))
      .send({ userId: user.id })
      .expect(403);
    expect(theirs.body.error).toBe('You can only see your own orders.');
    const mine = await orders.http().post('/api/orders/myorders').set(bearer(other)).send({}).expect(200);
    expect(mine.body.orders).toEqual([]);
    const asAdmin = await orders
      .http()
      .post('/api/orders/myorders')
      .set(bearer(orders.admin))
      .send({ userId: user.id })
      .expect(200);
    expect(asAdmin.body.orders).toHaveLength(1);
    expect(await orders.wallet.balance(user)).toBe(4);
  });
});

describe("an admin's decision", () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await orders.customer(20);
  });

  it('accepts an order with a reply the customer reads in My Orders', async () => {
    const { body } = await orders.order(user, draft()).expect(201);
    const res = await orders.decide(body.orderId as string, 'confirmed', 'CODE-1234-ABCD').expect(200);
    expect(res.body).toMatchObject({ success: true, message: 'Order has been accepted.' });
    const mine = await orders.http().post('/api/orders/myorders').set(bearer(user)).send({}).expect(200);
    expect(mine.body.orders.find((o: { id: string }) => o.id === body.orderId)).toMatchObject({
      status: 'confirmed',
      replay_api: 'CODE-1234-ABCD',
    });
    expect(await movements(body.orderId as string)).toHaveLength(1);
  });

  it('takes one decision when two admins act at once; a rejection refunds once', async () => {
    const second = await newUser('admin');
    const before = await orders.wallet.balance(user);
    const { body } = await orders.order(user, draft({ quantity: 2 })).expect(201);
    expect(await orders.wallet.balance(user)).toBe(before - 2);
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => orders.decide(body.orderId as string, 'rejected')),
      ...Array.from({ length: 5 }, () => orders.decide(body.orderId as string, 'confirmed', 'x', second)),
    ]);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const winner = answers.find((r) => r.status === 200)!;
    const [stored] = await orders.storedOrders({ _id: new Types.ObjectId(body.orderId as string) });
    const refunds = (await movements(body.orderId as string)).filter((e) => e.type === 'IN');
    if (winner.body.message === 'Order has been rejected.') {
      expect(stored!.status).toBe('rejected');
      expect(refunds).toHaveLength(1);
      expect(await orders.wallet.balance(user)).toBe(before);
    } else {
      expect(stored!.status).toBe('confirmed');
      expect(refunds).toHaveLength(0);
      expect(await orders.wallet.balance(user)).toBe(before - 2);
    }
    const late = await orders.decide(body.orderId as string, 'rejected').expect(409);
    expect(late.body.error).toMatch(/^This order has already been (confirmed|rejected)\.$/);
  });

  it('rejects an order and the refund shows in the profile', async () => {
    const before = await orders.wallet.balance(user);
    const { body } = await orders.order(user, draft()).expect(201);
    const res = await orders.decide(body.orderId as string, 'rejected').expect(200);
    expect(res.body).toMatchObject({ success: true, message: 'Order has been rejected.' });
    expect(await orders.wallet.balance(user)).toBe(before);
    const profile = await orders.wallet.http().get(`/api/profile/${user.id}`).set(bearer(user)).expect(200);
    expect(profile.body.transactions[0]).toMatchObject({ type: 'IN', amount: 1 });
  });

  it('refuses a decision on an unknown order or with a bad action', async () => {
    await orders.decide(new Types.ObjectId().toString(), 'confirmed').expect(404);
    const bad = await orders
      .http()
      .post('/api/orders/action')
      .set(bearer(orders.admin))
      .send({ orderId: new Types.ObjectId().toString(), action: 'maybe' })
      .expect(400);
    expect(bad.body.error).toBe("The action must be 'confirmed' or 'rejected'.");
  });

  it("counts all orders and the waiting ones for the admin's home", async () => {
    const { body } = await orders.http().get('/api/orders/stats').set(bearer(orders.admin)).expect(200);
    const stored = (await orders.storedOrders({ paid: true })).filter((o) => o.paid);
    expect(body).toEqual({
      totalOrders: stored.length,
      waitingOrders: stored.filter((o) => o.status === 'waiting').length,
    });
    expect(body.totalOrders).toBeGreaterThan(100);
  });
});

describe('one Idempotency-Key, one request', () => {
  const reused = 'This Idempotency-Key was used for a different request.';

  it('refuses the key with another product, quantity or params, and changes nothing', async () => {
    const user = await orders.customer(10);
    const key = new Types.ObjectId().toString();
    const first = await orders.order(user, draft({ quantity: 2 }), key).expect(201);
    const other = await orders.createdProduct('1');
    for (const changed of [
      draft({ quantity: 3 }),
      draft({ quantity: 2, product_id: other }),
      draft({ quantity: 2, params: 'Account e-mail:someone-else@example.com' }),
    ]) {
      const res = await orders.order(user, changed, key).expect(422);
      expect(res.body).toEqual({ orderStatus: false, error: reused });
    }
    // The same request in another form of its params is the same request.
    const same = await orders
      .order(user, draft({ quantity: 2, params: { 'Account e-mail': 'player@example.com' } }), key)
      .expect(201);
    expect(same.body.orderId).toBe(first.body.orderId);
    expect(await orders.storedOrders({ userId: user.id })).toHaveLength(1);
    expect(await movements(first.body.orderId as string)).toHaveLength(1);
    expect(await orders.wallet.balance(user)).toBe(8);
  });

  it('refuses the key with another request even while the first is racing', async () => {
    const user = await orders.customer(10);
    const key = new Types.ObjectId().toString();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => orders.order(user, draft({ quantity: (i % 2) + 1 }), key)),
    );
    const won = answers.find((r) => r.status === 201)!;
    const quantity = (await orders.storedOrders({ userId: user.id }))[0]!.quantity as number;
    for (const [i, res] of answers.entries()) {
      if ((i % 2) + 1 === quantity) expect(res.body.orderId).toBe(won.body.orderId);
      else expect(res.status).toBe(422);
    }
    expect(await orders.storedOrders({ userId: user.id })).toHaveLength(1);
    expect(await orders.wallet.balance(user)).toBe(10 - quantity);
  });
});

describe('prices as the customer sees them', () => {
  it("debits a customer's discounted price, to the micro-dollar", async () => {
    const user = await orders.customer(100);
    const product = await orders.createdProduct('3.33');
    await publishEvents('user.discount-changed', {
      key: user.id,
      data: { userId: user.id, percentage: 7, setAt: new Date().toISOString() },
    });
    // Catalog prices with the discount once it has heard of it.
    const orderId = await eventually(
      async () => {
        const res = await orders.order(user, draft({ product_id: product, quantity: 3 }), undefined);
        if (res.status !== 201) throw new Error(`order answered ${res.status}`);
        const [debit] = await movements(res.body.orderId as string);
        return debit!.amount === 3 * Math.round(toMicros(3.33) * 0.93)
          ? (res.body.orderId as string)
          : undefined;
      },
      { what: 'a discounted order' },
    );
    const [debit] = await movements(orderId);
    expect(debit).toMatchObject({ amount: 9_290_700, type: 'OUT' });
    const [stored] = await orders.storedOrders({ _id: new Types.ObjectId(orderId) });
    expect(stored).toMatchObject({ unitPrice: 3_096_900, total: 9_290_700 });
  });

  it("orders a supplier product whose name is longer than the wallet keeps, under the kit's bounded name", async () => {
    const p = orders.sim.products.find((x) => x.available && x.params.length === 1 && !x.qtyValues)!;
    orders.sim.updateProduct(p.id, { name: `  Card   ${'x'.repeat(400)}  ` });
    expect((await orders.catalog.sync(`Bearer ${orders.admin.token}`)).status).toBe(200);
    const user = await orders.customer(100);
    const res = await orders
      .order(user, { product_id: `p-${p.id}`, quantity: 1, params: `${p.params[0]}:player-1` })
      .expect(201);
    const [stored] = await orders.storedOrders({ _id: new Types.ObjectId(res.body.orderId as string) });
    expect([...(stored!.productName as string)]).toHaveLength(200);
    expect(stored!.productName).toMatch(/^Card x+…$/);
    const [debit] = await movements(res.body.orderId as string);
    expect(debit!.productName).toBe(stored!.productName);
  });
});

/** How many times catalog has priced a product for an order (its own count of the requests it answered). */
async function catalogAsked(): Promise<number> {
  const metric = orders.catalog.service.context.metrics.registry.getSingleMetric(
    'http_request_duration_seconds',
  );
  const { values } = (await metric!.get()) as prom.MetricObjectWithValues<prom.MetricValueWithName<string>>;
  return values
    .filter((v) => v.metricName === 'http_request_duration_seconds_count')
    .filter((v) => String(v.labels.route).startsWith('/internal/products/'))
    .reduce((sum, v) => sum + v.value, 0);
}

describe("catalog's answers, kept between changes of the catalogue", () => {
  it('prices a repeat order without asking catalog, and every order after a change at its new terms', async () => {
    const user = await orders.customer(100);
    const product = await orders.createdProduct('2');
    const order = draft({ product_id: product });
    const paid = async (res: { body: Record<string, unknown> }) =>
      (await movements(res.body.orderId as string))[0]!.amount as number;
    const admin = () => orders.catalog.http();

    expect(await paid(await orders.order(user, order).expect(201))).toBe(toMicros(2));
    const asked = await catalogAsked();
    expect(await paid(await orders.order(user, order).expect(201))).toBe(toMicros(2));
    expect(await catalogAsked()).toBe(asked);

    // The admin is answered once the catalogue's version has moved on: the next order pays the new price.
    await admin()
      .put(`/api/update/product/${product}`)
      .set(bearer(orders.admin))
      .send({ price: 3 })
      .expect(200);
    expect(await paid(await orders.order(user, order).expect(201))).toBe(toMicros(3));
    expect(await catalogAsked()).toBe(asked + 1);

    // A discount reaches catalog by its event; from then on every order is priced with it.
    await publishEvents('user.discount-changed', {
      key: user.id,
      data: { userId: user.id, percentage: 10, setAt: new Date().toISOString() },
    });
    await eventually(
      async () =>
        (await paid(await orders.order(user, order).expect(201))) === toMicros(2.7) ? true : undefined,
      { what: 'the discounted price' },
    );
    expect(await paid(await orders.order(user, order).expect(201))).toBe(toMicros(2.7));

    await admin()
      .put(`/api/products/${product}/availability`)
      .set(bearer(orders.admin))
      .send({ available: false })
      .expect(200);
    const off = await orders.order(user, order).expect(400);
    expect(off.body).toEqual({ orderStatus: false, error: 'This product is not available right now.' });
    await admin().delete(`/api/delete/product/${product}`).set(bearer(orders.admin)).expect(200);
    const gone = await orders.order(user, order).expect(400);
    expect(gone.body).toEqual({ orderStatus: false, error: 'Product not found' });

    // What was paid is what the ledger holds, to the micro-dollar.
    const spent = (await orders.storedOrders({ userId: user.id })).filter((o) => o.paid);
    const total = spent.reduce((sum, o) => sum + (o.total as number), 0);
    expect(await orders.wallet.balance(user)).toBe((toMicros(100) - total) / 1_000_000);
  });
});

describe('CatalogPrices', () => {
  it('asks catalog every time when its Redis is not the one catalog keeps the version in', async () => {
    const elsewhere = new URL(orders.config.CACHE_REDIS_URL);
    elsewhere.pathname = elsewhere.pathname === '/5' ? '/6' : '/5';
    const redis = redisConnection(elsewhere.toString());
    try {
      const prices = new CatalogPrices(
        new ServiceClient('catalog', [orders.catalog.service.url], orders.config.SERVICE_TOKEN),
        redis,
      );
      const user = await newUser();
      const asked = await catalogAsked();
      for (let i = 0; i < 3; i++) expect((await prices.of(giftCard, user.id))?.unitPrice).toBe(toMicros(1));
      expect(await catalogAsked()).toBe(asked + 3);
    } finally {
      redis.disconnect();
    }
  });
});

describe('a deleted account', () => {
  it('places no new orders, while its earlier order still answers and a rejection still refunds it', async () => {
    const user = await orders.customer(10);
    const key = new Types.ObjectId().toString();
    const placed = await orders.order(user, draft({ quantity: 3 }), key).expect(201);
    await publishEvents('user.deleted', { key: user.id, data: { userId: user.id } });

    const refused = await eventually(
      async () => {
        const res = await orders.order(user, draft());
        return res.status === 201 ? undefined : res;
      },
      { what: 'a refused order' },
    );
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ orderStatus: false, error: 'This account has been deleted.' });
    // Whatever slipped through before the deletion was heard of is counted below.
    const shown = (await orders.storedOrders({ userId: user.id, paid: true })).length;
    expect((await orders.order(user, draft(), new Types.ObjectId().toString())).status).toBe(404);
    // Its first order still answers as placed, and still gets its decision and refund.
    expect((await orders.order(user, draft({ quantity: 3 }), key).expect(201)).body.orderId).toBe(
      placed.body.orderId,
    );
    await orders.decide(placed.body.orderId as string, 'rejected').expect(200);
    expect(await movements(placed.body.orderId as string)).toHaveLength(2);
    expect(await orders.wallet.balance(user)).toBe(10 - (shown - 1));
  });
});
