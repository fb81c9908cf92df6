import { Types } from 'mongoose';
import { insertOrder, startTestOrders, toMicros, type TestOrders, type TestUser } from './support';

/** Issue 19: a created product's stock of codes, delivered the moment an order is paid. */
let orders: TestOrders;
beforeAll(async () => {
  // The cut-off orders below are a minute old; a racing order slowed by a busy machine is not.
  // Longer than any placement takes on a busy machine: the repair finishes only what was cut off.
  orders = await startTestOrders({ ORDER_REPAIR_AFTER_SECONDS: '600' });
});
afterAll(() => orders.stop());

const bearer = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });
const upload = (productId: string, text: string | Buffer, as = orders.admin) =>
  orders
    .http()
    .post(`/api/orders/stock/${productId}/codes`)
    .set(bearer(as))
    .attach('file', Buffer.isBuffer(text) ? text : Buffer.from(text), 'codes.csv');
const stock = (productId: string) =>
  orders.http().get(`/api/orders/stock/${productId}`).set(bearer(orders.admin)).expect(200);
const reveal = (orderId: string, as: TestUser) =>
  orders.http().get(`/api/orders/codes/${orderId}`).set(bearer(as));
const params = { 'Account e-mail': 'me@example.com' };
const codesOf = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}-XK9Q`);

describe('uploading codes', () => {
  it('adds codes sealed, counts blanks and repeats, and shows admins only masks', async () => {
    const product = await orders.createdProduct('5');
    const first = await upload(
      product,
      'STEAM-AAAA-1111,SER-1,PIN-1,2099-12-31\n\nSTEAM-BBBB-2222\nSTEAM-AAAA-1111\n"STEAM-CCCC,3333"\n',
    ).expect(201);
    expect(first.body).toMatchObject({
      added: 3,
      duplicates: 1,
      blank: 1,
      stock: { available: 3, sold: 0, expired: 0 },
    });
    const again = await upload(product, 'STEAM-BBBB-2222\nSTEAM-DDDD-4444\n').expect(201);
    expect(again.body).toMatchObject({ added: 1, duplicates: 1, stock: { available: 4 } });

    // Nothing stored or shown holds a code whole.
    const stored = JSON.stringify(
      await orders.db.collection('stock_codes').find({ productId: product }).toArray(),
    );
    const listed = await stock(product);
    for (const code of ['STEAM-AAAA-1111', 'STEAM-BBBB-2222', 'STEAM-CCCC,3333', 'SER-1', 'PIN-1']) {
      expect(stored).not.toContain(code);
      expect(JSON.stringify(listed.body)).not.toContain(code);
    }
    expect(listed.body.codes.map((c: { mask: string }) => c.mask).sort()).toEqual(
      ['••••1111', '••••2222', '••••3333', '••••4444'].sort(),
    );
    expect(listed.body.batches).toHaveLength(2);
    expect(listed.body.batches[0]).toMatchObject({ by: orders.admin.username, added: 1, duplicates: 1 });
  });

  it('refuses bad uploads with a clear 4xx that adds nothing', async () => {
    const product = await orders.createdProduct('5');
    const customer = await orders.customer();
    const cases: [number, string | RegExp, ReturnType<typeof upload>][] = [
      [403, /./, upload(product, 'CODE-1\n', customer)],
      [400, 'Only a product the store created can hold codes.', upload('p-1', 'CODE-1\n')],
      [404, 'Product not found', upload('c-does-not-exist', 'CODE-1\n')],
      [400, 'The file holds no codes.', upload(product, '\n\n  \n')],
      [400, 'Line 2: the expiry is not a date (use YYYY-MM-DD).', upload(product, 'A-1\nA-2,,,tomorrow\n')],
      [400, /could not be read/, upload(product, Buffer.from([0x41, 0xff, 0xfe, 0x0a]))],
      [400, 'At most 10,000 codes an upload.', upload(product, codesOf(10_001, 'X').join('\n'))],
    ];
    for (const [status, error, request] of cases) {
      const res = await request;
      const text = typeof error === 'string' ? error : expect.stringMatching(error);
      expect([res.status, res.body.error]).toEqual([status, text]);
    }
    expect(await orders.db.collection('stock_codes').countDocuments({ productId: product })).toBe(0);
    const fine = await upload(product, codesOf(10_000, 'Y').join('\n')).expect(201);
    expect(fine.body.stock.available).toBe(10_000);
  });
});

describe('instant delivery', () => {
  it('confirms an order at once with a code only its owner can reveal, and charges once', async () => {
    const product = await orders.createdProduct('2');
    await upload(product, 'GIFT-0001-ABCD,SN-77,9876\n').expect(201);
    const customer = await orders.customer(10);
    const placed = await orders.order(customer, { product_id: product, quantity: 1, params }).expect(201);
    const orderId = placed.body.orderId as string;
    const [order] = await orders.storedOrders({ _id: new Types.ObjectId(orderId) });
    expect(order).toMatchObject({ status: 'confirmed', stocked: true });
    expect(order!.replay).toContain('••••ABCD');
    expect(order!.replay).not.toContain('GIFT-0001-ABCD');
    expect(await orders.wallet.balance(customer)).toBe(8);

    const shown = await reveal(orderId, customer).expect(200);
    expect(shown.body.codes).toEqual([{ code: 'GIFT-0001-ABCD', serial: 'SN-77', pin: '9876' }]);
    // Not to another customer, nor to an admin: the order is "not found" to them.
    await reveal(orderId, await orders.customer()).expect(404);
    await reveal(orderId, orders.admin).expect(404);

    // The last code is gone: the next order is refused and not charged.
    const refused = await orders.order(customer, { product_id: product, quantity: 1, params });
    expect([refused.status, refused.body.error]).toEqual([409, 'Out of stock']);
    expect(await orders.wallet.balance(customer)).toBe(8);
    expect((await stock(product)).body.stock).toEqual({ available: 0, sold: 1, expired: 0 });
  });

  it('gives a code back when the wallet refuses the debit', async () => {
    const product = await orders.createdProduct('20');
    await upload(product, 'ONLY-CODE-0001\n').expect(201);
    const poor = await orders.customer(1);
    const refused = await orders.order(poor, { product_id: product, quantity: 1, params });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect((await stock(product)).body.stock).toEqual({ available: 1, sold: 0, expired: 0 });
    const rich = await orders.customer(30);
    await orders.order(rich, { product_id: product, quantity: 1, params }).expect(201);
    expect((await stock(product)).body.stock).toEqual({ available: 0, sold: 1, expired: 0 });
  });

  it('sells the last 50 codes to exactly 50 of 200 racing orders, each a different code, and charges no one else', async () => {
    const product = await orders.createdProduct('1');
    const codes = codesOf(50, 'RACE');
    await upload(product, codes.join('\n')).expect(201);
    const customers: TestUser[] = [];
    for (let i = 0; i < 20; i++) customers.push(await orders.customer(10));

    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        orders.order(customers[i % 20]!, { product_id: product, quantity: 1, params }, `race-order-${i}`),
      ),
    );
    console.log(`[codes] 200 orders racing for 50 codes answered in ${Date.now() - started} ms`);
    const byStatus = answers.reduce<Record<number, number>>(
      (n, a) => ({ ...n, [a.status]: (n[a.status] ?? 0) + 1 }),
      {},
    );
    expect([byStatus, answers.find((a) => a.status !== 201 && a.status !== 409)?.body]).toEqual([
      { 201: 50, 409: 150 },
      undefined,
    ]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.error === 'Out of stock')).toBe(true);

    const sold = answers.filter((a) => a.status === 201);
    const delivered: string[] = [];
    for (const answer of sold) {
      const owner = customers[answers.indexOf(answer) % 20]!;
      const shown = await reveal(answer.body.orderId as string, owner).expect(200);
      delivered.push(...shown.body.codes.map((c: { code: string }) => c.code));
    }
    expect(new Set(delivered).size).toBe(50);
    expect([...delivered].sort()).toEqual([...codes].sort());

    // Each customer paid for exactly the orders that got a code.
    for (const [i, customer] of customers.entries()) {
      const won = sold.filter((a) => answers.indexOf(a) % 20 === i).length;
      expect([i, await orders.wallet.balance(customer)]).toEqual([i, 10 - won]);
    }
    const claims = await orders.db.collection('stock_claims').find({ productId: product }).toArray();
    expect(claims).toHaveLength(50);
    const confirmed = await orders.storedOrders({ productId: product, status: 'confirmed' });
    expect(confirmed.map((o) => o._id.toString()).sort()).toEqual(
      [...new Set(claims.map((c) => c.orderId))].sort(),
    );
    expect((await stock(product)).body.stock).toEqual({ available: 0, sold: 50, expired: 0 });
    expect((await orders.reconcile()).problems).toEqual([]);
  }, 120_000);
});

describe('codes cut off by a crash', () => {
  it('are delivered to a debited order and given back by an order the wallet never took, at start-up', async () => {
    const product = await orders.createdProduct('2');
    await upload(product, 'CUT-0001\nCUT-0002\n').expect(201);
    const customer = await orders.customer(10);
    const codeIds = (await orders.db.collection('stock_codes').find({ productId: product }).toArray()).map(
      (c) => c._id.toString(),
    );
    /** An order from stock as placement records it, with its code claimed, then cut off 15 minutes ago. */
    const cutOff = async (codeId: string) => {
      const id = await insertOrder(orders, customer, product, {
        stocked: true,
        createdAt: new Date(Date.now() - 15 * 60_000),
      });
      await orders.db.collection('stock_claims').insertOne({
        _id: codeId as never,
        orderId: id,
        productId: product,
        slot: 0,
        at: new Date(),
      });
      await orders.db
        .collection('stock_codes')
        .updateOne({ _id: new Types.ObjectId(codeId) }, { $set: { claimedBy: id } });
      return id;
    };
    // Debited by the wallet; the crash came before the order was marked paid.
    const debited = await cutOff(codeIds[0]!);
    await orders.wallet
      .internal(`/internal/orders/${debited}/debit`, {
        userId: customer.id,
        amount: toMicros(2),
        productName: 'Gift card',
      })
      .expect(200);
    // The crash came before the wallet was asked.
    const unasked = await cutOff(codeIds[1]!);

    await orders.restart();

    const [paid] = await orders.storedOrders({ _id: new Types.ObjectId(debited) });
    expect(paid).toMatchObject({ paid: true, status: 'confirmed' });
    expect((await reveal(debited, customer).expect(200)).body.codes).toHaveLength(1);
    const [voided] = await orders.storedOrders({ _id: new Types.ObjectId(unasked) });
    expect(voided).toMatchObject({ paid: false, failed: { status: 409 } });
    expect(await orders.db.collection('stock_claims').countDocuments({ orderId: unasked })).toBe(0);
    expect((await stock(product)).body.stock).toEqual({ available: 1, sold: 1, expired: 0 });
    expect(await orders.wallet.balance(customer)).toBe(8);
  });
});

describe('what other services read of the codes', () => {
  const internal = (path: string, token: string | null = orders.config.SERVICE_TOKEN) => {
    const req = orders.http().get(path);
    return token === null ? req : req.set('x-service-token', token);
  };
  const codesCheck = async () => (await internal('/internal/orders/codes/reconcile').expect(200)).body;

  it('answers the codes of an order confirmed from stock whole, to a service only', async () => {
    const product = await orders.createdProduct('2');
    await upload(product, 'MAIL-0001-WXYZ,SN-9,1234,2099-12-31\nMAIL-0002-WXYZ\n').expect(201);
    const customer = await orders.customer(10);
    const placed = await orders.order(customer, { product_id: product, quantity: 2, params }).expect(201);
    const orderId = placed.body.orderId as string;

    await internal(`/internal/orders/${orderId}/codes`, null).expect(403);
    await internal(`/internal/orders/${orderId}/codes`, 'x'.repeat(64)).expect(403);
    // Nor does a customer's session open it.
    await orders.http().get(`/internal/orders/${orderId}/codes`).set(bearer(customer)).expect(403);
    const shown = await internal(`/internal/orders/${orderId}/codes`).expect(200);
    expect(shown.body).toEqual({
      orderId,
      userId: customer.id,
      codes: expect.arrayContaining([
        { code: 'MAIL-0001-WXYZ', serial: 'SN-9', pin: '1234', expires: '2099-12-31' },
        { code: 'MAIL-0002-WXYZ' },
      ]),
    });
    expect(shown.body.codes).toHaveLength(2);

    // Not an order from stock (confirmed by an admin), not confirmed, or unknown: 404.
    const plain = await orders.createdProduct('2');
    const manual = await orders.order(customer, { product_id: plain, quantity: 1, params }).expect(201);
    await orders.decide(manual.body.orderId as string, 'confirmed', 'CODE-BY-HAND').expect(200);
    const unpaid = await insertOrder(orders, customer, product, { stocked: true });
    for (const id of [manual.body.orderId as string, unpaid, new Types.ObjectId().toString()]) {
      const res = await internal(`/internal/orders/${id}/codes`).expect(404);
      expect(res.body.error).toBe('Order not found');
    }
  });

  it('finds every code sold on exactly one confirmed order after the races and crashes above', async () => {
    const report = await codesCheck();
    expect(report).toEqual({ sold: expect.any(Number), inFlight: 0, problems: [] });
    expect(report.sold).toBeGreaterThanOrEqual(55);
  });

  it('names a code held by a voided order, an order confirmed without its code, and a code kept from sale', async () => {
    const product = await orders.createdProduct('2');
    await upload(product, 'LOST-0001\nLOST-0002\n').expect(201);
    const customer = await orders.customer(10);
    const sold = await orders.order(customer, { product_id: product, quantity: 1, params }).expect(201);
    const confirmedId = sold.body.orderId as string;
    const claims = orders.db.collection('stock_claims');
    const [soldClaim] = await claims.find({ orderId: confirmedId }).toArray();
    const soldCode = String(soldClaim!._id);
    const free = await orders.db.collection('stock_codes').findOne({ productId: product, claimedBy: null });
    const freeCode = free!._id.toString();

    // An order voided two days ago whose code was never given back.
    const twoDaysAgo = new Date(Date.now() - 48 * 3600_000);
    const voided = await insertOrder(orders, customer, product, {
      stocked: true,
      failed: { status: 409, error: 'Out of stock' },
      createdAt: twoDaysAgo,
    });
    await orders.db.collection('order_fates').insertOne({
      _id: voided as never,
      fate: 'void',
      failed: { status: 409, error: 'Out of stock' },
      at: twoDaysAgo,
    });
    await claims.insertOne({
      _id: freeCode as never,
      orderId: voided,
      productId: product,
      slot: 0,
      at: twoDaysAgo,
    });
    await orders.db
      .collection('stock_codes')
      .updateOne({ _id: new Types.ObjectId(freeCode) }, { $set: { claimedBy: voided } });
    // The confirmed order's claim lost: its code still names it, but nothing holds the code.
    await claims.deleteOne({ _id: soldCode as never });

    const report = await codesCheck();
    expect(report.problems.sort()).toEqual(
      [
        `code ${freeCode} (product ${product}) is claimed by order ${voided} (account ${customer.id}), which was voided`,
        `order ${confirmedId} (account ${customer.id}) was confirmed from stock with 0 codes for a quantity of 1`,
        `code ${soldCode} (product ${product}) names order ${confirmedId} as its buyer but has no claim: it is kept from sale`,
      ].sort(),
    );
  });
});
