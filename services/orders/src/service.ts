import { ApiRoutes, ServiceClient, startService, SupplierClient, type RunningService } from '@raseed/kit';
import type { OrdersConfig } from './config';
import { orderModels, OrderStore } from './data/orders';
import type { FulfilmentDeps } from './domain/fulfilment';
import { repair } from './domain/orders';
import { fulfilmentJobs } from './jobs/fulfilment';
import { orderRoutes } from './routes/orders';
import { supplierRoutes } from './routes/supplier';

const REPAIR_EVERY_MS = 30_000;

export function startOrders(config: OrdersConfig): Promise<RunningService> {
  return startService('orders', config, async (ctx) => {
    const models = orderModels(ctx.mongo);
    // Unique keys decide what happens once: they exist before any write.
    await Promise.all(Object.values(models).map((m) => m.init()));
    const orders = new OrderStore(models, ctx.locks);
    const supplier = new SupplierClient({
      url: config.SUPPLIER_URL,
      token: config.SUPPLIER_TOKEN,
      timeoutMs: config.SUPPLIER_TIMEOUT_MS,
      logger: ctx.logger,
    });
    const deps: FulfilmentDeps = {
      orders,
      supplier,
      catalog: new ServiceClient('catalog', config.CATALOG_URL, config.SERVICE_TOKEN),
      wallet: new ServiceClient('wallet', config.WALLET_URL, config.SERVICE_TOKEN),
      logger: ctx.logger,
      published: ctx.eventsRecorded,
      fulfil: (order) => jobs.place(order._id.toString()),
    };
    const jobs = fulfilmentJobs(ctx.redis, ctx.logger, deps, {
      prefix: config.QUEUE_PREFIX,
      attempts: config.ORDER_PLACEMENT_ATTEMPTS,
      backoffMs: config.ORDER_PLACEMENT_BACKOFF_MS,
      syncEverySeconds: config.ORDER_SYNC_SECONDS,
    });
    ctx.onStop(() => jobs.close());

    const api = new ApiRoutes(config.SERVICE_TOKEN);
    orderRoutes(api, deps);
    supplierRoutes(api, deps);

    // Placements and decisions cut off by a crash are finished at start and then now and again.
    const runRepair = () =>
      repair(deps, config.ORDER_REPAIR_AFTER_SECONDS * 1000).then(
        (n) => n && ctx.logger.warn({ repaired: n }, 'finished orders that were cut off'),
        (err: unknown) => ctx.logger.error({ err }, 'repairing orders failed'),
      );
    await runRepair();
    const timer = setInterval(() => void runRepair(), REPAIR_EVERY_MS);
    ctx.onStop(async () => clearInterval(timer));
    await jobs.start();

    return { routes: api.router, docs: [api.registry], outbox: [models.Order] };
  });
}
