import {
  ADMIN_RUN,
  createQueue,
  createWorker,
  insertNew,
  QUEUE_NAMES,
  runJob,
  supplierSync,
  withTrace,
  type SyncAnswer,
  type Outbox,
  type DocumentLocks,
  type Logger,
  type SupplierClient,
  type SupplierProduct as Incoming,
} from '@raseed/kit';
import type IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { CatalogModels, SupplierProduct } from '../data/models';
import { nameKey } from '../domain/sections';
import { productChanged } from '../events/published';

export const SYNC_QUEUE = QUEUE_NAMES.catalogueSync;
const WRITE_BATCH = 500;
const LOCK_MS = 10 * 60_000;

export interface SyncResult {
  received: number;
  created: number;
  updated: number;
  removed: number;
  durationMs: number;
}

type Fields = Pick<
  SupplierProduct,
  | 'name'
  | 'nameKey'
  | 'price'
  | 'categoryName'
  | 'categoryKey'
  | 'categoryImg'
  | 'params'
  | 'qtyValues'
  | 'supplierAvailable'
  | 'removed'
>;

function fieldsOf(p: Incoming): Fields {
  return {
    name: p.name,
    nameKey: nameKey(p.name),
    price: p.price,
    categoryName: p.categoryName,
    categoryKey: nameKey(p.categoryName),
    categoryImg: p.categoryImg,
    params: p.params,
    qtyValues: p.qtyValues,
    supplierAvailable: p.available,
    removed: false,
  };
}

const same = (a: Fields, b: Fields) =>
  (Object.keys(a) as (keyof Fields)[]).every(
    (k) => JSON.stringify(a[k] ?? null) === JSON.stringify(b[k] ?? null),
  );

async function inChunks<T>(items: T[], work: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += WRITE_BATCH) await work(items.slice(i, i + WRITE_BATCH));
}

/**
 * Brings the synced copy in line with the supplier's list. The list is read whole first,
 * so a supplier that is down or answers garbage leaves the last catalogue as it was.
 * A product that left the list is kept, marked removed and unavailable (it comes back if the
 * supplier lists it again). A product that changed or left announces catalog.product-changed; every name
 * and category gets its custom record (profit multiplier 1, no image) once.
 */
export async function syncCatalogue(
  models: CatalogModels,
  locks: DocumentLocks,
  outbox: Outbox,
  supplier: Pick<SupplierClient, 'products'>,
): Promise<SyncResult> {
  const started = Date.now();
  const incoming = await supplier.products();
  const now = new Date();
  const existing = new Map(
    (await models.SupplierProduct.find().lean<SupplierProduct[]>()).map((p) => [p._id, p] as const),
  );
  const seen = new Set<string>();
  const fresh: object[] = [];
  const updates: { id: string; fields: Fields; available: boolean }[] = [];
  for (const product of incoming) {
    const id = `p-${product.id}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const fields = fieldsOf(product);
    const known = existing.get(id);
    if (!known)
      fresh.push({
        _id: id,
        supplierId: product.id,
        ...fields,
        available: true,
        syncedAt: now,
        createdAt: now,
      });
    else if (!same(fields, known)) updates.push({ id, fields, available: known.available });
  }
  const gone = [...existing.values()].filter((p) => !p.removed && !seen.has(p._id));

  await inChunks(fresh, (chunk) =>
    // Another writer may have inserted some of them first: the unique key kept one of each.
    insertNew(models.SupplierProduct, chunk, { lean: true }),
  );
  for (const { id, fields, available } of updates) {
    await outbox.add(
      productChanged({ _id: id, ...fields, available: available && fields.supplierAvailable }, 'updated'),
    );
    await locks.run(models.SupplierProduct, id, () =>
      models.SupplierProduct.updateOne({ _id: id }, { $set: { ...fields, syncedAt: now } }),
    );
  }
  for (const product of gone) {
    await outbox.add(productChanged(product, 'removed'));
    await locks.run(models.SupplierProduct, product._id, () =>
      models.SupplierProduct.updateOne(
        { _id: product._id },
        { $set: { removed: true, supplierAvailable: false, syncedAt: now } },
      ),
    );
  }
  await ensureCustomRecords(models, incoming);
  return {
    received: incoming.length,
    created: fresh.length,
    updated: updates.length,
    removed: gone.length,
    durationMs: Date.now() - started,
  };
}

/** One custom product per product name and one custom category per category name, each made once (unique key). */
async function ensureCustomRecords(models: CatalogModels, incoming: Incoming[]): Promise<void> {
  const [products, categories] = await Promise.all([
    models.CustomProduct.find().select({ nameKey: 1 }).lean<{ nameKey: string }[]>(),
    models.CustomCategory.find()
      .select({ nameKey: 1, supplierImg: 1 })
      .lean<{ nameKey: string; supplierImg: string }[]>(),
  ]);
  const haveProducts = new Set(products.map((p) => p.nameKey));
  const haveCategories = new Map(categories.map((c) => [c.nameKey, c.supplierImg]));
  const newProducts = new Map<string, object>();
  const newCategories = new Map<string, object>();
  const categoryImages: { key: string; img: string }[] = [];
  for (const p of incoming) {
    const key = nameKey(p.name);
    if (!haveProducts.has(key)) newProducts.set(key, { name: p.name.trim(), nameKey: key, percentage: 1 });
    const cat = nameKey(p.categoryName);
    if (!haveCategories.has(cat)) {
      newCategories.set(cat, { name: p.categoryName.trim(), nameKey: cat, supplierImg: p.categoryImg });
    } else if (haveCategories.get(cat) !== p.categoryImg && !categoryImages.some((c) => c.key === cat)) {
      categoryImages.push({ key: cat, img: p.categoryImg });
    }
  }
  await inChunks([...newProducts.values()], (chunk) => insertNew(models.CustomProduct, chunk));
  await inChunks([...newCategories.values()], (chunk) => insertNew(models.CustomCategory, chunk));
  for (const { key, img } of categoryImages) {
    await models.CustomCategory.updateOne({ nameKey: key }, { $set: { supplierImg: img } });
  }
}

/**
 * One sync at a time across every catalog process (a Redis lock): a second caller waits for
 * the running sync to end, then runs its own on fresh data. The lock only saves work; two
 * syncs at once would still leave one copy of each product (inserts under unique ids).
 */
export function exclusiveSync(redis: IORedis, key: string, sync: () => Promise<SyncResult>) {
  return async (): Promise<SyncResult> => {
    const token = randomUUID();
    while ((await redis.set(key, token, 'PX', LOCK_MS, 'NX')) !== 'OK') {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    try {
      return await sync();
    } finally {
      if ((await redis.get(key)) === token) await redis.del(key);
    }
  };
}

/**
 * The sync as a BullMQ job: repeated every few minutes and once at start, retried with backoff;
 * an admin's sync now runs as one too (syncNow).
 */
export function syncJobs(
  redis: IORedis,
  logger: Logger,
  sync: () => Promise<SyncResult>,
  options: { everyMinutes: number; prefix: string },
) {
  const queue = createQueue<{ reason: string }>(SYNC_QUEUE, redis, logger, options.prefix);
  const worker = createWorker<{ reason: string }, SyncAnswer<SyncResult>>(
    SYNC_QUEUE,
    async (job) => {
      const answer = await supplierSync(job.data.reason, sync);
      if ('supplierError' in answer)
        logger.warn({ reason: job.data.reason, ...answer }, "the supplier's catalogue could not be read");
      else logger.info({ reason: job.data.reason, ...answer }, 'supplier catalogue synced');
      return answer;
    },
    redis,
    logger,
    { concurrency: 1, prefix: options.prefix },
  );
  return {
    queue,
    /**
     * Syncs now in the job's worker, never in the caller's request, and waits up to `waitMs`
     * for its answer (undefined if it is still running).
     */
    syncNow: (waitMs: number) =>
      runJob<{ reason: string }, SyncAnswer<SyncResult>>(
        queue,
        'sync',
        withTrace({ reason: ADMIN_RUN }),
        waitMs,
      ),
    async start() {
      await queue.upsertJobScheduler(
        'catalog-sync-every',
        { every: options.everyMinutes * 60_000 },
        { name: 'sync', data: { reason: 'schedule' } },
      );
      await queue.add('sync', { reason: 'start' });
    },
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
