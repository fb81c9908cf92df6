import { startService, type RunningService } from '@raseed/kit';
import { Router } from 'express';
import type { AuthConfig } from './config';
import { ResetStore } from './data/resets';
import { UserStore, userModel } from './data/users';
import { ensureFirstAdmin } from './domain/accounts';
import { passwordHasher } from './domain/passwords';
import { emailQueue, startEmailWorker } from './jobs/email';
import { sessionRoutes } from './routes/session';
import { userRoutes } from './routes/users';

export function startAuth(config: AuthConfig): Promise<RunningService> {
  return startService('auth', config, async (ctx) => {
    const User = userModel(ctx.mongo);
    await User.init();
    const users = new UserStore(User, ctx.locks);
    const resets = new ResetStore(ctx.mongo, ctx.locks);
    await resets.resets.init();
    const emails = emailQueue(ctx.redis);
    ctx.onStop(() => emails.close());
    ctx.onStop(startEmailWorker(ctx.redis, config.SMTP_URL, config.MAIL_FROM, ctx.logger));

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
      resets,
      passwords,
      emails,
      logger: ctx.logger,
      published: ctx.eventsRecorded,
    };
    const routes = Router();
    routes.use(sessionRoutes(deps), userRoutes(deps));
    return { routes, outbox: [User] };
  });
}
