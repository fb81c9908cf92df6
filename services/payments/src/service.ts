import {
  ApiRoutes,
  ObjectStore,
  ServiceClient,
  startService,
  type RunningService,
  withoutMarker,
} from '@raseed/kit';
import type { PaymentsConfig } from './config';
import { paymentModels, PaymentStore } from './data/payments';
import { SalesBook } from './data/sales';
import { UserDirectory } from './data/users';
import { onUserDeleted, onUserRegistered } from './events/users';
import { onWalletDebited } from './events/wallet-debited';
import { internalRoutes } from './routes/internal';
import { paymentRoutes } from './routes/payments';

const REPAIR_EVERY_MS = 30_000;

export function startPayments(config: PaymentsConfig): Promise<RunningService> {
  return startService('payments', config, async (ctx) => {
    const models = paymentModels(ctx.mongo);
    // Unique keys decide what happens once: they exist before any write.
    await Promise.all(Object.values(models).map((m) => m.init()));
    const payments = new PaymentStore(models, ctx.locks, ctx.outbox);
    const sales = new SalesBook(models.SaleSummary, models.SaleUserTotals, payments);
    const users = new UserDirectory(ctx.mongo);
    const receipts = new ObjectStore(config, config.S3_BUCKET);
    await receipts.ensureBucket();
    const wallet = new ServiceClient('wallet', config.WALLET_URL, config.SERVICE_TOKEN);

    ctx.metrics.figure('raseed_topups_waiting', 'Top-ups waiting for an admin', () =>
      payments.count({ status: 'waiting' }),
    );
    ctx.metrics.figure(
      'raseed_topups_oldest_waiting_seconds',
      'How long the oldest waiting top-up has waited (0 when none)',
      async () => {
        const oldest = await payments.oldestWaiting();
        return oldest ? (Date.now() - oldest.getTime()) / 1000 : 0;
      },
    );

    const api = new ApiRoutes(config.SERVICE_TOKEN);
    paymentRoutes(api, { config, payments, sales, users, receipts, wallet });
    internalRoutes(api, payments);

    await ctx.consume({
      'user.registered': onUserRegistered(users),
      'user.deleted': onUserDeleted(users),
      // Most debits are orders', which it skips; an admin's withdrawal is an insert under its id.
      'wallet.debited': withoutMarker(onWalletDebited(payments, ctx.logger)),
    });

    // Decisions cut off between their two writes are finished at start and then now and again.
    const repair = () =>
      payments.repairDecisions().then(
        (n) => n && ctx.logger.warn({ repaired: n }, 'finished decisions that were cut off'),
        (err: unknown) => ctx.logger.error({ err }, 'repairing decisions failed'),
      );
    // The hours of sales that are over are summed for the figures, and the payments of the hours
    // that are over tallied for the counts, after each repair. The first time on a store with a
    // history each reads every payment once, so the start does not wait for them.
    const sum = () =>
      Promise.all([
        sales.close().then(
          (through) => through && ctx.logger.info({ through }, 'sales summed'),
          (err: unknown) => ctx.logger.error({ err }, 'summing the sales failed'),
        ),
        payments.tallies.close().then(
          (through) => through && ctx.logger.info({ through }, 'payments tallied'),
          (err: unknown) => ctx.logger.error({ err }, 'tallying the payments failed'),
        ),
      ]);
    await repair();
    void sum();
    const timer = setInterval(() => void repair().then(sum), REPAIR_EVERY_MS);
    ctx.onStop(async () => clearInterval(timer));

    return {
      routes: api.router,
      docs: [api.registry],
      readiness: { objects: () => receipts.ping() },
    };
  });
}
