import { loadConfig, serviceUrls, urlList } from '@raseed/kit';
import { z } from 'zod';

export function loadWalletConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    {
      PORT: z.coerce.number().int().min(0).default(4002),
      MONGO_DB: z.string().default('raseed_wallet'),
      /** Where reconcile reads the confirmed payments it checks the ledger against. */
      PAYMENTS_URL: serviceUrls('http://127.0.0.1:4005'),
      /** Where reconcile reads the orders it checks the ledger against (npm run reconcile sets it; unset, orders are not checked). */
      ORDERS_URL: urlList.optional(),
      /** When the reconcile runs as a job (cron, the server's time zone): nightly at 03:00 by default. */
      RECONCILE_CRON: z.string().min(9).default('0 3 * * *'),
    },
    env,
  );
}

export type WalletConfig = ReturnType<typeof loadWalletConfig>;
