import { eventually, readEvents } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import { startTestOrders, type TestOrders, type TestUser } from './support';

/** Issue 19: a stock's level in the store, what its admin chooses for it, and low-stock news. */
let orders: TestOrders;
beforeAll(async () => {
  orders = await startTestOrders();
});
afterAll(() => orders.stop());

const bearer = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });
const upload = (productId: string, codes: string[]) =>
  orders
    .http()
    .post(`/api/orders/stock/${productId}/codes`)
    .set(bearer(orders.admin))
    .attach('file', Buffer.from(codes.join('\n')), 'codes.csv')
    .expect(201);
const settings = (productId: string, body: object, as = orders.admin) =>
  orders.http().put(`/api/orders/stock/${productId}/settings`).set(bearer(as)).send(body);
const params = { 'Account e-mail': 'me@example.com' };
const codes = (n: number) => Array.from({ length: n }, () => `CODE-${new Types.ObjectId().toString()}`);

/** The product as a visitor's page of its category shows it, once it shows `outOfStock`. */
async function shownOutOfStock(productId: string, outOfStock: boolean) {
  return eventually(
    async () => {
      const page = await orders.catalog.http().get('/api/catalog/category/Steam').expect(200);
      const product = (
        page.body.products as { id: string; out_of_stock: boolean; available: boolean }[]
      ).find((p) => p.id === productId);
      return product?.out_of_stock === outOfStock ? product : undefined;
    },
    { what: `product ${productId} shown ${outOfStock ? 'out of stock' : 'on sale'}` },
  );
}

describe('a stock of codes in the store', () => {
  it('shows a sold-out product as out of stock, and on sale again once codes come in', async () => {
    const product = await orders.createdProduct('3');
    await upload(product, codes(1));
    expect(await shownOutOfStock(product, false)).toMatchObject({ available: true });
    const customer = await orders.customer(10);
    await orders.order(customer, { product_id: product, quantity: 1, params }).expect(201);
    expect(await shownOutOfStock(product, true)).toMatchObject({ available: true, out_of_stock: true });

    await upload(product, codes(2));
    await shownOutOfStock(product, false);
    await orders.order(customer, { product_id: product, quantity: 1, params }).expect(201);
    // One left: still on sale.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await shownOutOfStock(product, false);
  });

  it('takes orders by hand once out of stock when its admin says so', async () => {
    const product = await orders.createdProduct('3');
    await upload(product, codes(1));
    const customer = await orders.customer(10);
    await orders.order(customer, { product_id: product, quantity: 1, params }).expect(201);
    await shownOutOfStock(product, true);

    const saved = await settings(product, { low_stock_threshold: 0, manual_when_out: true }).expect(200);
    expect(saved.body).toEqual({
      success: true,
      settings: { low_stock_threshold: 0, manual_when_out: true },
      message: 'Stock settings saved.',
    });
    await shownOutOfStock(product, false);
    const stock = await orders
      .http()
      .get(`/api/orders/stock/${product}`)
      .set(bearer(orders.admin))
      .expect(200);
    expect(stock.body.settings).toEqual({ low_stock_threshold: 0, manual_when_out: true });

    // Out of codes, the order is taken, charged, and waits for an admin as without a stock.
    const placed = await orders.order(customer, { product_id: product, quantity: 1, params }).expect(201);
    const [order] = await orders.storedOrders({ _id: new Types.ObjectId(placed.body.orderId as string) });
    expect(order).toMatchObject({ status: 'waiting', stocked: false });
    expect(await orders.wallet.balance(customer)).toBe(4);

    // Codes again: delivered at once from stock.
    await upload(product, codes(1));
    const instant = await orders.order(customer, { product_id: product, quantity: 1, params }).expect(201);
    const [delivered] = await orders.storedOrders({
      _id: new Types.ObjectId(instant.body.orderId as string),
    });
    expect(delivered).toMatchObject({ status: 'confirmed', stocked: true });
  });

  it('refuses bad settings with a clear 4xx that changes nothing', async () => {
    const product = await orders.createdProduct('3');
    const customer = await orders.customer();
    const fine = { low_stock_threshold: 5, manual_when_out: false };
    const cases: [number, ReturnType<typeof settings>][] = [
      [400, settings(product, { low_stock_threshold: -1, manual_when_out: false })],
      [400, settings(product, { low_stock_threshold: 1.5, manual_when_out: false })],
      [400, settings(product, { low_stock_threshold: 10_001, manual_when_out: false })],
      [400, settings(product, { low_stock_threshold: 5, manual_when_out: 'yes' })],
      [400, settings(product, { manual_when_out: true })],
      [403, settings(product, fine, customer)],
      [400, settings('p-1', fine)],
      [404, settings('c-does-not-exist', fine)],
    ];
    for (const [status, request] of cases) {
      const res = await request;
      expect(res.status).toBe(status);
      expect(typeof res.body.error).toBe('string');
    }
    await orders.http().put(`/api/orders/stock/${product}/settings`).send(fine).expect(401);
    const stock = await orders
      .http()
      .get(`/api/orders/stock/${product}`)
      .set(bearer(orders.admin))
      .expect(200);
    expect(stock.body.settings).toEqual({ low_stock_threshold: 0, manual_when_out: false });
  });

  it('tells the admins once when a stock falls to its threshold, and again after a refill', async () => {
    const product = await orders.createdProduct('1');
    await settings(product, { low_stock_threshold: 2, manual_when_out: false }).expect(200);
    await upload(product, codes(4));
    const customer = await orders.customer(20);
    // 4 → 3 → 2 (low) → 1 (still the same refill: told once).
    for (let i = 0; i < 3; i += 1) {
      await orders.order(customer, { product_id: product, quantity: 1, params }).expect(201);
    }
    const told = await readEvents('stock.low', (e) => e.data.productId === product, {
      count: 1,
      settleMs: 3000,
    });
    // Counted after each sale, in the background: the count that told it may already see the next sale.
    expect(told.map((e) => e.data)).toEqual([
      {
        productId: product,
        productName: expect.stringMatching(/^Gift card /),
        available: expect.any(Number),
        threshold: 2,
      },
    ]);
    expect(told[0]!.data.available).toBeLessThanOrEqual(2);

    // A refill of 1 (2 left, at the threshold at once) is a new refill: told again.
    await upload(product, codes(1));
    const again = await readEvents('stock.low', (e) => e.data.productId === product, {
      count: 2,
      settleMs: 3000,
    });
    expect(again).toHaveLength(2);
    expect(again[1]!.data.available).toBe(2);
  });
});
