import { loadConfig, secretOrDevelopment, urlList } from '@raseed/kit';
import { z } from 'zod';

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(
    {
      PORT: z.coerce.number().int().min(0).default(4001),
      MONGO_DB: z.string().default('raseed_auth'),
      ADMIN_EMAIL: z.string().email().default('admin@raseed.local'),
      ADMIN_USERNAME: z.string().min(1).default('admin'),
      ADMIN_PASSWORD: z.string().min(8, 'ADMIN_PASSWORD must be at least 8 characters').optional(),
      COOKIE_SECURE: z.enum(['true', 'false']).optional(),
      /** bcrypt cost: each step doubles the work of a hash (12 is about 0.3 s of one core here). */
      PASSWORD_HASH_COST: z.coerce.number().int().min(10).max(15).default(12),
      RESET_TOKEN_TTL_MINUTES: z.coerce.number().int().positive().default(60),
      /** Failed sign-ins one account may take per window, from any number of addresses. */
      SIGNIN_ACCOUNT_FAILURES: z.coerce.number().int().positive().default(10),
      /** Password-reset e-mails one address may be sent per window. */
      RESET_EMAIL_LIMIT: z.coerce.number().int().positive().default(5),
      /** How often the admins are e-mailed a digest of new waiting top-ups and orders, if any. */
      ADMIN_DIGEST_EVERY_SECONDS: z.coerce.number().int().positive().default(300),
      /** Where the codes of an order confirmed from stock are read for its e-mail (unset: the e-mail carries none). */
      ORDERS_URL: urlList.optional(),
    },
    env,
  );
  return {
    ...config,
    ADMIN_PASSWORD: secretOrDevelopment('ADMIN_PASSWORD', config.ADMIN_PASSWORD, config.NODE_ENV),
    // Secure cookies need https; default to whatever the public address uses.
    COOKIE_SECURE: config.COOKIE_SECURE
      ? config.COOKIE_SECURE === 'true'
      : config.PUBLIC_URL.startsWith('https:'),
  };
}

export type AuthConfig = ReturnType<typeof loadAuthConfig>;
