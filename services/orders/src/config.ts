import { loadConfig, serviceUrls } from '@raseed/kit';
import { z } from 'zod';

export function loadOrdersConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    {
      PORT: z.coerce.number().int().min(0).default(4004),
      MONGO_DB: z.string().default('raseed_orders'),
      WALLET_URL: serviceUrls('http://127.0.0.1:4002'),
      CATALOG_URL: serviceUrls('http://127.0.0.1:4003'),
      /** The Redis catalog keeps its cache in (its CACHE_REDIS_URL): orders reads the catalogue's version there. */
      CACHE_REDIS_URL: z.string().url().default('redis://127.0.0.1:6379/1'),
      /** An order left unpaid this long (its placement was cut off) is finished or undone. */
      ORDER_REPAIR_AFTER_SECONDS: z.coerce.number().int().min(1).default(120),
      /** Tries at placing a supplier order before it is rejected and refunded, and the first wait between them. */
      ORDER_PLACEMENT_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
      ORDER_PLACEMENT_BACKOFF_MS: z.coerce.number().int().min(10).default(2000),
      /** How often the supplier is asked about the orders it took. */
      ORDER_SYNC_SECONDS: z.coerce.number().positive().default(30),
      /** How long an admin's 'sync now' waits for the sync job's answer before answering 202 (it goes on). */
      ORDER_SYNC_WAIT_SECONDS: z.coerce.number().positive().default(20),
      /**
       * How long the supplier is still asked about an order after we settled it without it (a
       * placement that timed out was refunded) or it said OK: a late completion or a later
       * reject becomes a dispute for admins. Hours; fractions allowed.
       */
      ORDER_WATCH_HOURS: z.coerce.number().positive().default(24),
      /** A paid supplier order still waiting after this long is listed for admins to decide. Hours; fractions allowed. */
      ORDER_STUCK_HOURS: z.coerce.number().positive().default(24),
      /** The key stocks of codes are sealed with (AES-256-GCM); required in production, and never to change once codes are stored. */
      CODES_KEY: z.string().min(32, 'CODES_KEY must be at least 32 characters').optional(),
    },
    env,
  );
}

export type OrdersConfig = ReturnType<typeof loadOrdersConfig>;
