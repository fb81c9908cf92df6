import { SupplierClient, SupplierError, type Logger } from '@raseed/kit';
import { SECTIONS, startSupplierSim, type RunningSupplierSim } from '@raseed/supplier-sim';

const TOKEN = 'supplier-client-test-token';
let sim: RunningSupplierSim;

beforeAll(async () => {
  sim = await startSupplierSim({ token: TOKEN });
});
afterAll(() => sim.stop());
beforeEach(() => sim.control.reset());
afterEach(() => jest.restoreAllMocks());

const client = (options: { token?: string; timeoutMs?: number; retries?: number; logger?: Logger } = {}) =>
  new SupplierClient({ url: sim.url, token: TOKEN, timeoutMs: 5000, retries: 2, ...options });

/** The first product of a category, as the simulator lists it. */
const productOf = (category: string) => {
  const product = sim.control.products.find((p) => p.categoryName === category && p.available);
  if (!product) throw new Error(`no available ${category} product`);
  return product;
};

/** Places an order for the first available product of a category, answered as the scenario says. */
function placeUnder(
  scenario: string,
  category: string,
  uuid: string,
  params: Record<string, string> = {},
  options: { timeoutMs?: number } = {},
) {
  const product = productOf(category);
  sim.control.setScenario(product.id, scenario);
  return client(options).placeOrder({ uuid, productId: String(product.id), quantity: 1, params });
}

async function failure(work: Promise<unknown>): Promise<SupplierError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SupplierError);
  return err as SupplierError;
}

/** Counts the calls made to one supplier path from now on. */
function supplierCalls(path: string): () => unknown[] {
  const fetched = jest.spyOn(globalThis, 'fetch');
  return () => fetched.mock.calls.filter(([url]) => String(url).includes(path));
}

describe('SupplierClient.products', () => {
  it('reads the whole catalogue, every section, every price in exact micro-dollars', async () => {
    sim.control.updateProduct(1001, { price: 0.912345 });
    const products = await client().products();

    expect(products).toHaveLength(sim.control.products.length);
    expect(products.length).toBeGreaterThanOrEqual(200);
    for (const categories of Object.values(SECTIONS)) {
      for (const category of categories) expect(products.map((p) => p.categoryName)).toContain(category);
    }
    const listed = new Map(sim.control.products.map((p) => [String(p.id), p.priceMicros]));
    for (const product of products) expect(product.price).toBe(listed.get(product.id));
    expect(products.find((p) => p.id === '1001')).toMatchObject({
      name: 'PUBG Mobile 60 UC',
      price: 912_345,
    });

    expect(products.find((p) => p.categoryName === 'PUBG Mobile')?.params).toEqual(['Player ID']);
    expect(products.find((p) => p.categoryName === 'Steam')).toMatchObject({ params: [], qtyValues: null });
    const followers = products.find((p) => p.categoryName === 'Instagram Followers');
    expect(followers?.qtyValues).toEqual({ min: 100, max: 10_000 });
    expect(followers?.price).toBeLessThan(10_000);
    expect(followers?.categoryImg).toBe(`${sim.url}/images/instagram-followers.png`);
    expect(products.some((p) => !p.available)).toBe(true);
  });

  it('leaves out a product whose price is not a positive amount, with a warning', async () => {
    sim.control.updateProduct(1002, { price: -1 });
    const warn = jest.fn();
    const products = await client({ logger: { warn } as unknown as Logger }).products();

    expect(products).toHaveLength(sim.control.products.length - 1);
    expect(products.map((p) => p.id)).not.toContain('1002');
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ skipped: 1, productIds: ['1002'] }),
      expect.any(String),
    );
  });

  it('reads a generated catalogue of 10,000 products', async () => {
    sim.control.useCatalogue(10_000);
    const products = await client().products();
    expect(products).toHaveLength(10_000);
    expect(new Set(products.map((p) => p.id)).size).toBe(10_000);
    expect(new Set(products.map((p) => p.name)).size).toBe(10_000);
  });

  it('tries an unavailable supplier again, then fails as unavailable', async () => {
    sim.control.setCatalogueScenario('error500');
    const calls = supplierCalls('/client/api/products');
    const err = await failure(client({ retries: 2 }).products());
    expect(err).toMatchObject({ kind: 'unavailable', status: 500 });
    expect(calls()).toHaveLength(3);
  });

  it('fails at once as malformed on an answer outside the contract', async () => {
    sim.control.setCatalogueScenario('garbage');
    const calls = supplierCalls('/client/api/products');
    expect(await failure(client().products())).toMatchObject({ kind: 'malformed' });
    sim.control.setCatalogueScenario('garbage:html');
    expect(await failure(client().products())).toMatchObject({ kind: 'malformed' });
    expect(calls()).toHaveLength(2);
  });

  it('gives up on a silent supplier as a timeout', async () => {
    sim.control.setCatalogueScenario('timeout');
    const err = await failure(client({ timeoutMs: 300, retries: 1 }).products());
    expect(err.kind).toBe('timeout');
  });

  it('is refused with the wrong token', async () => {
    const err = await failure(client({ token: 'not-the-token' }).products());
    expect(err).toMatchObject({ kind: 'refused', status: 401, message: 'Invalid token' });
  });
});

describe('SupplierClient.placeOrder', () => {
  it('places an order once per uuid', async () => {
    const card = productOf('Steam');
    const order = { uuid: 'order-once', productId: String(card.id), quantity: 1, params: {} };
    const first = await client().placeOrder(order);
    const again = await client().placeOrder(order);

    expect(again).toEqual(first);
    expect(first).toMatchObject({ uuid: 'order-once', status: 'wait', replay: null });
    expect(sim.control.placed).toHaveLength(1);
  });

  it('follows an order that waits through two checks, then completes with its reply', async () => {
    const placed = await placeUnder('after-polls:2', 'PUBG Mobile', 'order-polled', {
      'Player ID': '51234567',
    });
    const checks = [];
    for (let i = 0; i < 3; i++) checks.push((await client().orders([placed.orderId]))[0]);

    expect(placed.status).toBe('wait');
    expect(checks.map((c) => c?.status)).toEqual(['wait', 'wait', 'OK']);
    expect(checks[2]).toEqual({
      orderId: placed.orderId,
      uuid: 'order-polled',
      status: 'OK',
      replay: 'Delivered to 51234567',
    });
  });

  it('reads a reject with its reason', async () => {
    const placed = await placeUnder('reject:Invalid player id', 'Free Fire', 'order-rejected', {
      'Player ID': '0',
    });
    expect(placed).toMatchObject({ status: 'reject', replay: 'Invalid player id' });
    expect(await client().orders(['order-rejected'], 'uuid')).toEqual([placed]);
  });

  it('gives up after timeoutMs; a check by uuid then finds the order the supplier took', async () => {
    const calls = supplierCalls('/newOrder/');
    const err = await failure(placeUnder('timeout', 'iTunes', 'order-slow', {}, { timeoutMs: 300 }));

    expect(err.kind).toBe('timeout');
    expect(calls()).toHaveLength(1);
    expect(await client().orders(['order-slow'], 'uuid')).toEqual([
      expect.objectContaining({ uuid: 'order-slow', status: 'wait' }),
    ]);
  });

  it('is tried once when the supplier fails, and nothing is placed', async () => {
    const calls = supplierCalls('/newOrder/');
    const err = await failure(placeUnder('error500', 'Xbox', 'order-500'));

    expect(err).toMatchObject({ kind: 'unavailable', status: 500 });
    expect(calls()).toHaveLength(1);
    expect(await client().orders(['order-500'], 'uuid')).toEqual([]);
  });

  it('fails as malformed on an answer outside the contract', async () => {
    const err = await failure(placeUnder('garbage:html', 'PlayStation', 'order-garbled'));
    expect(err.kind).toBe('malformed');
  });

  it("carries the supplier's refusal text", async () => {
    const followers = productOf('Instagram Followers');
    const place = (quantity: number, params: Record<string, string>) =>
      failure(
        client().placeOrder({ uuid: `order-${quantity}`, productId: String(followers.id), quantity, params }),
      );

    expect(await place(50, { Link: 'https://instagram.com/raseed' })).toMatchObject({
      kind: 'refused',
      status: 400,
      message: 'Quantity must be between 100 and 10000',
    });
    expect(await place(100, {})).toMatchObject({ kind: 'refused', message: 'Missing parameter: Link' });
    expect(sim.control.placed).toHaveLength(0);
  });
});

describe('SupplierClient.orders', () => {
  it('asks about 250 orders in three calls of at most 100', async () => {
    const uuids = Array.from({ length: 250 }, (_, i) => `order-batch-${i}`);
    const placed = [];
    for (const uuid of uuids) placed.push(await placeUnder('complete', 'Steam', uuid));
    const calls = supplierCalls('/client/api/check');
    const found = await client().orders(placed.map((o) => o.orderId));

    expect(calls()).toHaveLength(3);
    expect(found.map((o) => o.uuid)).toEqual(uuids);
    expect(
      found.every((o) => o.status === 'OK' && /^[0-9A-F]{4}(-[0-9A-F]{4}){3}$/.test(o.replay ?? '')),
    ).toBe(true);
    expect(sim.control.placed.every((o) => o.checks === 1)).toBe(true);
  });

  it('asks nothing for no ids, and leaves out ids the supplier does not know', async () => {
    const calls = supplierCalls('/client/api/check');
    expect(await client().orders([])).toEqual([]);
    expect(calls()).toHaveLength(0);
    expect(await client().orders(['no-such-order'], 'uuid')).toEqual([]);
  });
});
