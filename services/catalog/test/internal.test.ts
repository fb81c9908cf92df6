import { displayPrice, redisConnection, toMicros, unitPrice } from '@raseed/kit';
import { eventually, publishEvents } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import type { SimProduct } from '../../../infra/supplier-sim/src';
import { IMAGE, startTestCatalog, type TestCatalog } from './support';

let catalog: TestCatalog;
let admin: string;

beforeAll(async () => {
  catalog = await startTestCatalog();
  admin = catalog.token('admin').token;
  const synced = await catalog.sync(admin);
  expect(synced.status).toBe(200);
});
afterAll(() => catalog.stop());

/** The product as orders reads it, with the service token. */
const internalProduct = (id: string, userId?: string) => {
  const req = catalog
    .http()
    .get(`/internal/products/${encodeURIComponent(id)}`)
    .set('x-service-token', catalog.config.SERVICE_TOKEN);
  if (userId !== undefined) req.query({ userId });
  return req;
};

/** A supplier product the simulator sells, with quantity limits or without. */
const simProduct = (withQuantity: boolean, skip: SimProduct[] = []) =>
  catalog.sim.control.products.find(
    (p) => p.available && (p.qtyValues !== null) === withQuantity && !skip.includes(p),
  )!;

/** Creates a product as an admin does; answers its 'c-' id. */
async function createProduct(name: string, dollars: string, categoryName: string): Promise<string> {
  const res = await catalog
    .http()
    .post('/api/create/product')
    .set('Authorization', admin)
    .field('productName', name)
    .field('price', dollars)
    .field('params', 'Account e-mail')
    .field('category_name', categoryName)
    .attach('image', IMAGE)
    .expect(201);
  return res.body.product.id as string;
}

const setDiscount = async (userId: string, percentage: number | null) => {
  await publishEvents('user.discount-changed', {
    key: userId,
    data: { userId, percentage, setAt: new Date().toISOString() },
  });
};

/** The catalogue's version an answer names: the sync and the products made here have set it. */
const catalogueVersion = {
  key: expect.stringMatching(/^raseed:catalog:.+:version$/) as unknown,
  at: expect.any(String) as unknown,
};

describe('the product an order is placed for', () => {
  it('answers a supplier product at its cost when no profit or discount applies', async () => {
    const sim = simProduct(true);
    const { body } = await internalProduct(`p-${sim.id}`).expect(200);
    expect(body).toEqual({
      id: `p-${sim.id}`,
      name: sim.name,
      kind: 'supplier',
      supplierId: String(sim.id),
      available: true,
      params: sim.params,
      qtyValues: sim.qtyValues,
      unitPrice: unitPrice(sim.priceMicros, null, null),
      categoryName: sim.categoryName,
      version: catalogueVersion,
    });
    const plain = simProduct(false);
    const { body: other } = await internalProduct(`p-${plain.id}`).expect(200);
    expect(other).toMatchObject({ qtyValues: null, unitPrice: plain.priceMicros });
  });

  it("prices supplier and created products with the profit multiplier and the user's discount", async () => {
    const customer = catalog.token('user');
    const stranger = catalog.token('user');
    await catalog
      .http()
      .post('/api/edit-custom-percentage')
      .set('Authorization', admin)
      .send({ percentage: 15 })
      .expect(200);
    await setDiscount(customer.id, 12.5);

    const sim = simProduct(false);
    const cost = sim.priceMicros;
    const seen = await eventually(
      async () => {
        const { body } = await internalProduct(`p-${sim.id}`, customer.id).expect(200);
        return body.unitPrice === unitPrice(cost, 1.15, 12.5) ? (body.unitPrice as number) : undefined;
      },
      { what: "the customer's discount" },
    );
    expect(seen).toBe(unitPrice(cost, 1.15, 12.5));
    expect((await internalProduct(`p-${sim.id}`).expect(200)).body.unitPrice).toBe(
      unitPrice(cost, 1.15, null),
    );
    expect((await internalProduct(`p-${sim.id}`, stranger.id).expect(200)).body.unitPrice).toBe(
      unitPrice(cost, 1.15, null),
    );
    // The storefront shows the customer the same price, in dollars.
    const { body: shown } = await catalog
      .http()
      .get(`/api/catalog/category/${encodeURIComponent(sim.categoryName)}`)
      .set('Authorization', customer.token)
      .expect(200);
    const listed = (shown.products as { id: string; price: number }[]).find((p) => p.id === `p-${sim.id}`);
    expect(listed?.price).toBe(displayPrice(seen, 6));

    // A created product of a name with a custom record takes its multiplier too, as the storefront shows it.
    const namesake = await createProduct(sim.name, '12.5', sim.categoryName);
    const { body: created } = await internalProduct(namesake, customer.id).expect(200);
    expect(created).toEqual({
      id: namesake,
      name: sim.name,
      kind: 'created',
      supplierId: null,
      available: true,
      params: ['Account e-mail'],
      qtyValues: null,
      unitPrice: unitPrice(toMicros(12.5), 1.15, 12.5),
      categoryName: sim.categoryName,
      version: catalogueVersion,
    });
    const own = await createProduct(`Gift Box ${Date.now()}`, '9.99', sim.categoryName);
    expect((await internalProduct(own, customer.id).expect(200)).body.unitPrice).toBe(
      unitPrice(toMicros(9.99), null, 12.5),
    );
    expect((await internalProduct(own).expect(200)).body.unitPrice).toBe(toMicros(9.99));
  });

  it("names the catalogue's version it is at least as new as, which a change moves on before the admin is answered", async () => {
    const redis = redisConnection(catalog.config.CACHE_REDIS_URL);
    try {
      const id = await createProduct(`Version Box ${Date.now()}`, '4', 'Steam');
      const before = (await internalProduct(id).expect(200)).body as { version: { key: string; at: string } };
      expect(before.version).toEqual(catalogueVersion);
      expect(await redis.get(before.version.key)).toBe(before.version.at);

      await catalog
        .http()
        .put(`/api/update/product/${id}`)
        .set('Authorization', admin)
        .send({ price: 5 })
        .expect(200);
      const moved = await redis.get(before.version.key);
      expect(moved).not.toBe(before.version.at);
      const after = (await internalProduct(id).expect(200)).body;
      expect(after).toMatchObject({
        unitPrice: toMicros(5),
        version: { key: before.version.key, at: moved },
      });
    } finally {
      redis.disconnect();
    }
  });

  it('answers available false for a product switched off by an admin or by the supplier', async () => {
    const switchedOff = simProduct(true);
    await catalog
      .http()
      .put(`/api/products/p-${switchedOff.id}/availability`)
      .set('Authorization', admin)
      .send({ available: false })
      .expect(200);
    expect((await internalProduct(`p-${switchedOff.id}`).expect(200)).body.available).toBe(false);

    const soldOut = simProduct(true, [switchedOff]);
    catalog.sim.control.updateProduct(soldOut.id, { available: false });
    expect((await catalog.sync(admin)).status).toBe(200);
    expect((await internalProduct(`p-${soldOut.id}`).expect(200)).body.available).toBe(false);

    const created = await createProduct(`Spare Box ${Date.now()}`, '3', soldOut.categoryName);
    await catalog
      .http()
      .put(`/api/products/${created}/availability`)
      .set('Authorization', admin)
      .send({ available: false })
      .expect(200);
    expect((await internalProduct(created).expect(200)).body).toMatchObject({
      kind: 'created',
      available: false,
    });
  });

  it('answers 404 for an unknown or deleted product and 400 for a malformed id or user id', async () => {
    const notFound = { error: 'Product not found' };
    await internalProduct('p-999999999').expect(404, notFound);
    await internalProduct(`c-${new Types.ObjectId()}`).expect(404, notFound);
    const deleted = await createProduct(`Gone Box ${Date.now()}`, '2', 'Steam');
    await catalog.http().delete(`/api/delete/product/${deleted}`).set('Authorization', admin).expect(200);
    await internalProduct(deleted).expect(404, notFound);

    const sim = simProduct(false);
    for (const id of ['x-1', 'p-', 'c-a b', `p-${'9'.repeat(101)}`]) {
      const res = await internalProduct(id);
      expect([id, res.status, res.body.error]).toEqual([id, 400, 'Invalid product id']);
    }
    for (const userId of ['nope', '', `${new Types.ObjectId()}0`]) {
      const res = await internalProduct(`p-${sim.id}`, userId);
      expect([userId, res.status, res.body.error]).toEqual([userId, 400, 'Invalid user id']);
    }
  });

  it('keeps the call to services holding the token', async () => {
    const path = `/internal/products/p-${simProduct(false).id}`;
    await catalog.http().get(path).expect(403);
    await catalog.http().get(path).set('x-service-token', 'wrong').expect(403);
    await catalog.http().get(path).set('Authorization', admin).expect(403);
  });
});
