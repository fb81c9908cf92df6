import { createQueue, redisConnection } from '@raseed/kit';
import { eventually, readEvents } from '@raseed/kit/testing';
import type IORedis from 'ioredis';
import { SYNC_QUEUE } from '../src/jobs/sync';
import { startTestCatalog, type TestCatalog } from './support';

/** The supplier catalogue sync at full size, its change events, and a supplier that is down. */
let catalog: TestCatalog;
let admin: string;
let redis: IORedis;
beforeAll(async () => {
  catalog = await startTestCatalog();
  admin = catalog.token('admin').token;
  redis = redisConnection(catalog.config.REDIS_URL);
});
afterAll(async () => {
  redis.disconnect();
  await catalog.stop();
});

const supplierProducts = () => catalog.db.collection('supplier_products');

describe('the supplier catalogue sync', () => {
  it('keeps the last catalogue while the supplier is down, and the job retries until it is back', async () => {
    await catalog.sync(admin);
    const before = await supplierProducts().countDocuments({ removed: false });
    expect(before).toBe(300);

    for (const scenario of ['error500', 'garbage', 'timeout']) {
      catalog.sim.control.setCatalogueScenario(scenario);
      const refused = await catalog.sync(admin);
      expect([scenario, refused.status]).toEqual([scenario, 502]);
      expect(refused.body.error).toMatch(/the last one stays/);
    }
    expect(await supplierProducts().countDocuments({ removed: false })).toBe(before);
    const page = await catalog.http().get('/api/catalog/category/Steam').expect(200);
    expect(page.body.products.length).toBeGreaterThan(0);

    catalog.sim.control.setCatalogueScenario('error500');
    const queue = createQueue<{ reason: string }>(
      SYNC_QUEUE,
      redis,
      catalog.service.context.logger,
      catalog.config.QUEUE_PREFIX,
    );
    const job = await queue.add('sync', { reason: 'test' });
    await eventually(async () => ((await queue.getJob(job.id!))!.attemptsMade >= 2 ? true : undefined), {
      what: 'a second attempt',
      timeoutMs: 30_000,
    });
    const changed = catalog.sim.control.products[0]!;
    catalog.sim.control.updateProduct(changed.id, { available: false });
    catalog.sim.control.setCatalogueScenario(null);
    await eventually(async () => ((await queue.getJob(job.id!))?.finishedOn ? true : undefined), {
      what: 'the sync job to succeed once the supplier is back',
      timeoutMs: 45_000,
    });
    expect((await queue.getJob(job.id!))?.returnvalue).toMatchObject({ received: 300 });
    // The change is applied by this job, or by the scheduled sync if one ran between its attempts.
    const stored = await supplierProducts().findOne({ _id: `p-${changed.id}` as never });
    expect(stored?.supplierAvailable).toBe(false);
    await queue.close();
  });

  it("runs an admin's sync in its job, and answers 202 when the job outlasts the wait", async () => {
    const quick = await startTestCatalog({ CATALOG_SYNC_WAIT_SECONDS: '0.05' });
    const queue = createQueue<{ reason: string }>(
      SYNC_QUEUE,
      redis,
      quick.service.context.logger,
      quick.config.QUEUE_PREFIX,
    );
    try {
      // The start-up sync may still be running: the admin's job waits behind it.
      quick.sim.control.useCatalogue(2_000);
      const answer = await quick.sync(quick.token('admin').token);
      expect([answer.status, answer.body]).toEqual([202, { success: true, queued: true }]);
      const done = await eventually(
        async () => {
          const jobs = await queue.getJobs(['completed']);
          return jobs.find((job) => job.data.reason === 'admin');
        },
        { what: "the admin's sync job to finish", timeoutMs: 30_000 },
      );
      expect(done.returnvalue).toMatchObject({ received: 2_000 });
      expect(await quick.db.collection('supplier_products').countDocuments({ removed: false })).toBe(2_000);
    } finally {
      await queue.close();
      await quick.stop();
    }
  });

  it('keeps a product the supplier stopped listing, shown as unavailable, until it is listed again', async () => {
    catalog.sim.control.reset();
    await catalog.sync(admin);
    const last = catalog.sim.control.products.at(-1)!;
    const shown = async () => {
      const page = await catalog.http().get(`/api/catalog/category/${encodeURIComponent(last.categoryName)}`);
      return (page.body.products as { id: string; available: boolean }[]).find(
        (p) => p.id === `p-${last.id}`,
      );
    };
    expect((await shown())?.available).toBe(last.available);

    catalog.sim.control.useCatalogue(299);
    const gone = await catalog.sync(admin);
    expect(gone.body).toMatchObject({ received: 299, created: 0, updated: 0, removed: 1 });
    expect(await supplierProducts().countDocuments({ _id: `p-${last.id}` as never })).toBe(1);
    expect(await shown()).toMatchObject({ available: false });
    const admins = await catalog.http().get('/external/products').set('Authorization', admin).expect(200);
    expect(admins.body.some((p: { id: string }) => p.id === `p-${last.id}`)).toBe(false);

    catalog.sim.control.useCatalogue(300);
    const back = await catalog.sync(admin);
    expect(back.body).toMatchObject({ received: 300, created: 0, updated: 1, removed: 0 });
    expect((await shown())?.available).toBe(last.available);
  });

  it('takes in 10,000 products, then announces exactly the one whose price changed', async () => {
    catalog.sim.control.useCatalogue(10_000);
    const first = await catalog.sync(admin);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ received: 10_000, removed: 0 });
    expect(await supplierProducts().countDocuments({ removed: false })).toBe(10_000);
    console.log(`10,000-product sync: ${first.body.durationMs} ms`);

    const since = new Date().toISOString();
    const changed = catalog.sim.control.products[4321]!;
    catalog.sim.control.updateProduct(changed.id, { price: changed.priceMicros / 1_000_000 + 1.25 });
    const second = await catalog.sync(admin);
    expect(second.body).toMatchObject({ received: 10_000, created: 0, updated: 1, removed: 0 });
    const stored = await supplierProducts().findOne({ _id: `p-${changed.id}` as never });
    expect(stored?.price).toBe(changed.priceMicros);

    const events = await readEvents('catalog.product-changed', (e) => e.occurredAt >= since, {
      count: 1,
      settleMs: 3000,
    });
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({
        productId: `p-${changed.id}`,
        price: changed.priceMicros,
        change: 'updated',
      }),
    ]);
  });
});
