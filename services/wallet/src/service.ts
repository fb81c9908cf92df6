import { ApiRoutes, startService, toDollars, type RunningService } from '@raseed/kit';
import type { WalletConfig } from './config';
import { entryModel, Ledger } from './data/ledger';
import { onPaymentConfirmed } from './events/payment-confirmed';
import { onUserRegistered } from './events/user-registered';
import { reconcileJobs } from './jobs/reconcile';
import { internalRoutes } from './routes/internal';
import { walletRoutes } from './routes/wallet';

export function startWallet(config: WalletConfig): Promise<RunningService> {
  return startService('wallet', config, async (ctx) => {
    const Entry = entryModel(ctx.mongo);
    // The unique indexes are what make each movement happen once: they exist before any write.
    await Entry.init();
    const ledger = new Ledger(Entry, ctx.locks, ctx.redis, ctx.outbox);

    ctx.metrics.gauge(
      'raseed_ledger_dollars',
      'Dollars moved by the ledger so far, by movement',
      ['movement'],
      async () =>
        Object.entries(await ledger.totals()).map(([movement, micros]) => ({
          labels: { movement },
          value: toDollars(micros),
        })),
    );

    const api = new ApiRoutes(config.SERVICE_TOKEN);
    walletRoutes(api, ledger);
    internalRoutes(api, ledger);

    const jobs = reconcileJobs(ctx.redis, ctx.logger, config, ledger, ctx.metrics);
    ctx.onStop(() => jobs.close());
    await jobs.start();

    await ctx.consume({
      'user.registered': onUserRegistered(ledger),
      'payment.confirmed': onPaymentConfirmed(ledger, ctx.logger),
    });
    return { routes: api.router, docs: [api.registry] };
  });
}
