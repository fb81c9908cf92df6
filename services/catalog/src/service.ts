import {
  ApiRoutes,
  ObjectStore,
  redisConnection,
  startService,
  SupplierClient,
  type RunningService,
} from '@raseed/kit';
import type { CatalogConfig } from './config';
import { ReadCache } from './data/cache';
import { CatalogReads } from './data/catalog';
import { catalogModels } from './data/models';
import { onDiscountChanged } from './events/discounts';
import { onStockLevelChanged } from './events/stock';
import { exclusiveSync, syncCatalogue, syncJobs } from './jobs/sync';
import { adminRoutes } from './routes/admin';
import { internalRoutes } from './routes/internal';
import { readRoutes } from './routes/reads';

export function startCatalog(config: CatalogConfig): Promise<RunningService> {
  return startService('catalog', config, async (ctx) => {
    const models = catalogModels(ctx.mongo);
    await Promise.all(Object.values(models).map((m) => m.init()));
    const images = new ObjectStore(config, config.S3_BUCKET);
    await images.ensureBucket();
    const cacheRedis = redisConnection(config.CACHE_REDIS_URL);
    ctx.onStop(() => cacheRedis.quit());
    const cache = new ReadCache(
      cacheRedis,
      `raseed:catalog:${config.MONGO_DB}`,
      config.CATALOG_CACHE_SECONDS,
    );
    const supplier = new SupplierClient({
      url: config.SUPPLIER_URL,
      token: config.SUPPLIER_TOKEN,
      timeoutMs: config.SUPPLIER_TIMEOUT_MS,
      logger: ctx.logger,
    });
    const sync = exclusiveSync(ctx.redis, `raseed:catalog:${config.MONGO_DB}:sync`, async () => {
      let result: Awaited<ReturnType<typeof syncCatalogue>>;
      try {
        result = await syncCatalogue(models, ctx.locks, ctx.outbox, supplier);
      } catch (err) {
        // A sync cut off midway may have changed some products: nothing read before is kept.
        await cache.invalidate().catch(() => undefined);
        throw err;
      }
      if (result.created || result.updated || result.removed) await cache.invalidate();
      return result;
    });

    const jobs = syncJobs(ctx.redis, ctx.logger, sync, {
      everyMinutes: config.SUPPLIER_SYNC_MINUTES,
      prefix: config.QUEUE_PREFIX,
    });

    const api = new ApiRoutes(config.SERVICE_TOKEN);
    readRoutes(api, { models, reads: new CatalogReads(models), cache, images });
    adminRoutes(api, {
      models,
      locks: ctx.locks,
      outbox: ctx.outbox,
      cache,
      images,
      syncNow: () => jobs.syncNow(config.CATALOG_SYNC_WAIT_SECONDS * 1000),
    });
    internalRoutes(api, { models, cache });

    await ctx.consume({
      'user.discount-changed': onDiscountChanged(models, cache),
      'stock.level-changed': onStockLevelChanged(models, cache),
    });
    ctx.onStop(() => jobs.close());
    ctx.metrics.watchQueue(jobs.queue);
    await jobs.start();

    return {
      routes: api.router,
      docs: [api.registry],
      readiness: { objects: () => images.ping() },
    };
  });
}
