import {
  ApiRoutes,
  redisConnection,
  secretOrDevelopment,
  ServiceClient,
  startService,
  SupplierClient,
  type RunningService,
  withoutMarker,
} from '@raseed/kit';
import type { OrdersConfig } from './config';
import { codeModels, CodeStore } from './data/codes';
import { disputeModels, DisputeStore } from './data/disputes';
import { orderModels, OrderStore } from './data/orders';
import { stockLevelModels, StockLevels } from './data/stock-levels';
import { DeletedUsers } from './data/users';
import { onUserDeleted } from './events/users';
import type { FulfilmentDeps } from './domain/deps';
import { CodeVault } from './domain/codes';
import { CatalogPrices } from './domain/prices';
import { repairDisputes } from './domain/disputes';
import { handOff, repair } from './domain/orders';
import { noticeStuck, type StuckDeps } from './domain/stuck';
import { fulfilmentJobs } from './jobs/fulfilment';
import { codeRoutes } from './routes/codes';
import { internalCodeRoutes } from './routes/codes-internal';
import { internalRoutes } from './routes/internal';
import { disputeRoutes } from './routes/disputes';
import { orderRoutes } from './routes/orders';
import { stuckRoutes } from './routes/stuck';
import { supplierRoutes } from './routes/supplier';

const REPAIR_EVERY_MS = 30_000;
const HOUR_MS = 3600_000;

export function startOrders(config: OrdersConfig): Promise<RunningService> {
  const vault = new CodeVault(secretOrDevelopment('CODES_KEY', config.CODES_KEY, config.NODE_ENV));
  return startService('orders', config, async (ctx) => {
    const models = orderModels(ctx.mongo);
    const disputeRecords = disputeModels(ctx.mongo);
    const stock = codeModels(ctx.mongo);
    const levels = stockLevelModels(ctx.mongo);
    // Unique keys decide what happens once: they exist before any write.
    await Promise.all(
      [
        ...Object.values(models),
        ...Object.values(disputeRecords),
        ...Object.values(stock),
        ...Object.values(levels),
      ].map((m) => m.init()),
    );
    const orders = new OrderStore(models, ctx.locks, ctx.outbox);
    const disputes = new DisputeStore(
      disputeRecords,
      ctx.locks,
      ctx.outbox,
      config.ORDER_WATCH_HOURS * HOUR_MS,
    );
    const supplierOptions = {
      url: config.SUPPLIER_URL,
      token: config.SUPPLIER_TOKEN,
      timeoutMs: config.SUPPLIER_TIMEOUT_MS,
      logger: ctx.logger,
    };
    const supplier = new SupplierClient(supplierOptions);
    // What every order reads of the service's own records (codes uploaded, accounts deleted) is
    // kept in memory until one of them changes: see VersionedMemo.
    const readVersion = `raseed:orders:${config.MONGO_DB}:version`;
    const deleted = new DeletedUsers(ctx.mongo, ctx.redis, readVersion);
    const catalogRedis = redisConnection(config.CACHE_REDIS_URL);
    ctx.onStop(() => catalogRedis.quit());
    const deps: FulfilmentDeps = {
      orders,
      codes: new CodeStore(stock, ctx.redis, readVersion),
      stock: new StockLevels(stock, levels, ctx.outbox, ctx.logger),
      supplier,
      disputes,
      prices: new CatalogPrices(
        new ServiceClient('catalog', config.CATALOG_URL, config.SERVICE_TOKEN),
        catalogRedis,
      ),
      wallet: new ServiceClient('wallet', config.WALLET_URL, config.SERVICE_TOKEN),
      logger: ctx.logger,
      deleted,
      fulfil: (order) => jobs.place(order._id.toString()),
    };
    const jobs = fulfilmentJobs(ctx.redis, ctx.logger, deps, {
      prefix: config.QUEUE_PREFIX,
      attempts: config.ORDER_PLACEMENT_ATTEMPTS,
      backoffMs: config.ORDER_PLACEMENT_BACKOFF_MS,
      syncEverySeconds: config.ORDER_SYNC_SECONDS,
    });
    ctx.onStop(() => jobs.close());
    await ctx.consume({
      'user.deleted': onUserDeleted(deleted),
      // A hand-off reads a supplier order and queues its placement under the order's id.
      'order.placed': withoutMarker(async ({ data }) => {
        if (data.kind !== 'created') await handOff(deps, data.orderId);
      }),
    });
    for (const queue of jobs.queues) ctx.metrics.watchQueue(queue);
    // What waits for someone: paid orders waiting, stuck supplier orders and open disputes.
    ctx.metrics.figure('raseed_orders_waiting', 'Paid orders waiting for a decision', () =>
      orders.count({ status: 'waiting' }),
    );
    ctx.metrics.figure(
      'raseed_orders_stuck',
      'Paid supplier orders waiting longer than ORDER_STUCK_HOURS',
      async () => {
        const stuckSince = new Date(Date.now() - config.ORDER_STUCK_HOURS * HOUR_MS);
        return (await orders.stuck(stuckSince, {}, 1, 1))[1];
      },
    );
    ctx.metrics.figure(
      'raseed_orders_disputed',
      'Disputed orders not yet resolved',
      async () => (await disputes.unresolved({}, 1, 1))[1],
    );

    const api = new ApiRoutes(config.SERVICE_TOKEN);
    orderRoutes(api, deps);
    codeRoutes(api, deps, vault);
    supplierRoutes(api, deps, () => jobs.syncNow(config.ORDER_SYNC_WAIT_SECONDS * 1000));
    disputeRoutes(api, deps);
    const stuck: StuckDeps = {
      ...deps,
      // An admin waits on the last ask of a stuck order: one try, no retries.
      lastAsk: new SupplierClient({ ...supplierOptions, retries: 0 }),
      stuckMs: config.ORDER_STUCK_HOURS * HOUR_MS,
    };
    stuckRoutes(api, stuck);
    internalRoutes(api, models, disputeRecords);
    internalCodeRoutes(api, deps, vault);

    // Placements and decisions cut off by a crash are finished at start and then now and again;
    // orders that became stuck meanwhile are told to the admins.
    const runRepair = () =>
      repair(deps, config.ORDER_REPAIR_AFTER_SECONDS * 1000)
        .then(async (n) => n + (await repairDisputes(deps)))
        .then(
          (n) => n && ctx.logger.warn({ repaired: n }, 'finished orders that were cut off'),
          (err: unknown) => ctx.logger.error({ err }, 'repairing orders failed'),
        )
        .then(() => noticeStuck(stuck))
        .catch((err: unknown) => ctx.logger.error({ err }, 'telling the admins of stuck orders failed'));
    // The hours of orders that are over are tallied for the counts, after each repair. The first
    // time on a store with a history it counts every hour once, so the start does not wait for it.
    const tally = () =>
      orders.tallies.close().then(
        (through) => through && ctx.logger.info({ through }, 'orders tallied'),
        (err: unknown) => ctx.logger.error({ err }, 'tallying the orders failed'),
      );
    await runRepair();
    void tally();
    const timer = setInterval(() => void runRepair().then(tally), REPAIR_EVERY_MS);
    ctx.onStop(async () => clearInterval(timer));
    await jobs.start();

    return { routes: api.router, docs: [api.registry] };
  });
}
