import {
  ApiRoutes,
  Limit,
  ServiceClient,
  sessionKeys,
  startService,
  type RunningService,
  withoutMarker,
} from '@raseed/kit';
import type { AuthConfig } from './config';
import { FiguresStore } from './data/figures';
import { ResetStore } from './data/resets';
import { UserStore, userModel } from './data/users';
import { ensureFirstAdmin } from './domain/accounts';
import { passwordHasher } from './domain/passwords';
import { DigestStore } from './data/digest';
import { onOrderDisputed, onOrderPlaced, onOrderStuck, onTopUpSubmitted } from './events/digest';
import { onDebtChanged, onPaymentConfirmed } from './events/figures';
import { onOrderConfirmed, onOrderRejected, onTopUpConfirmed, onTopUpRejected } from './events/notices';
import { onStockLow } from './events/stock';
import { messageModel } from './data/messages';
import { digestJobs } from './jobs/digest';
import { emailQueue, startEmailWorker } from './jobs/email';
import { contactRoutes } from './routes/contact';
import { emailPreferenceRoutes } from './routes/email-preferences';
import { sessionRoutes } from './routes/session';
import { userRoutes } from './routes/users';

export function startAuth(config: AuthConfig): Promise<RunningService> {
  return startService('auth', config, async (ctx) => {
    const User = userModel(ctx.mongo);
    await User.init();
    const users = new UserStore(User, ctx.locks, ctx.outbox);
    // Once a store, in the background: until it is done the lists leave out users not flagged yet.
    void users.flagDeleted().then(
      (flagged) =>
        flagged && ctx.logger.info({ flagged }, 'users recorded before the deleted flag were flagged'),
      (err: unknown) =>
        ctx.logger.error({ err }, 'flagging the users recorded before the deleted flag failed'),
    );
    const resets = new ResetStore(ctx.mongo, ctx.locks);
    await resets.resets.init();
    const figures = new FiguresStore(ctx.mongo, User, ctx.locks);
    await figures.sales.init();
    const digest = new DigestStore(ctx.mongo);
    await digest.init();
    const emails = emailQueue(ctx.redis, ctx.logger, config.QUEUE_PREFIX);
    ctx.onStop(() => emails.close());
    ctx.metrics.watchQueue(emails);
    ctx.onStop(
      startEmailWorker(
        ctx.redis,
        {
          smtpUrl: config.SMTP_URL,
          from: config.MAIL_FROM,
          prefix: config.QUEUE_PREFIX,
          secretKeys: sessionKeys(config),
        },
        ctx.logger,
      ),
    );

    const passwords = passwordHasher(config.PASSWORD_HASH_COST);
    if (
      await ensureFirstAdmin(users, passwords, {
        email: config.ADMIN_EMAIL,
        username: config.ADMIN_USERNAME,
        password: config.ADMIN_PASSWORD,
      })
    ) {
      ctx.logger.info(
        { email: config.ADMIN_EMAIL },
        'created the first admin from ADMIN_EMAIL / ADMIN_PASSWORD',
      );
    }

    const deps = {
      config,
      users,
      figures,
      resets,
      passwords,
      emails,
      logger: ctx.logger,
      outbox: ctx.outbox,
      sessions: ctx.sessions,
      limits: {
        signInFailures: new Limit(
          ctx.redis,
          'signin-account',
          config.SIGNIN_ACCOUNT_FAILURES,
          config.AUTH_RATE_WINDOW_SECONDS,
        ),
        resetRequests: new Limit(
          ctx.redis,
          'reset-email',
          config.RESET_EMAIL_LIMIT,
          config.AUTH_RATE_WINDOW_SECONDS,
        ),
      },
    };
    const api = new ApiRoutes(config.SERVICE_TOKEN);
    sessionRoutes(api, deps);
    userRoutes(api, deps);
    emailPreferenceRoutes(api, deps);
    const messages = messageModel(ctx.mongo);
    contactRoutes(api, { ...deps, messages });

    // The Users List's debt and sales, kept from the wallet's and payments' events; the
    // customers' top-up and order e-mails (an order's codes read from orders); the items of the
    // admins' digest and their low-stock e-mails.
    const notices = {
      users,
      emails,
      digest,
      publicUrl: config.PUBLIC_URL,
      orders: config.ORDERS_URL && new ServiceClient('orders', config.ORDERS_URL, config.SERVICE_TOKEN),
      secretKey: config.JWT_SECRET,
      logger: ctx.logger,
    };
    const saleOf = onPaymentConfirmed(figures);
    const topUpConfirmed = onTopUpConfirmed(notices);
    await ctx.consume({
      'payment.confirmed': async (event) => {
        await saleOf(event);
        await topUpConfirmed(event);
      },
      'wallet.debt-changed': onDebtChanged(figures),
      'payment.rejected': onTopUpRejected(notices),
      'order.confirmed': onOrderConfirmed(notices),
      'order.rejected': onOrderRejected(notices),
      // A digest item is an insert under its event's id: the event needs no marker.
      'payment.submitted': withoutMarker(onTopUpSubmitted(digest)),
      'order.placed': withoutMarker(onOrderPlaced(digest)),
      'order.disputed': withoutMarker(onOrderDisputed(digest)),
      'order.stuck': withoutMarker(onOrderStuck(digest)),
      'stock.low': onStockLow(notices),
    });
    const digests = digestJobs(ctx.redis, ctx.logger, notices, {
      everySeconds: config.ADMIN_DIGEST_EVERY_SECONDS,
      prefix: config.QUEUE_PREFIX,
    });
    ctx.onStop(() => digests.close());
    ctx.metrics.watchQueue(digests.queue);
    await digests.start();
    return { routes: api.router, docs: [api.registry] };
  });
}
