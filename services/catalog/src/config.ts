import { loadConfig } from '@raseed/kit';
import { z } from 'zod';

export function loadCatalogConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    {
      PORT: z.coerce.number().int().min(0).default(4003),
      MONGO_DB: z.string().default('raseed_catalog'),
      /** How often the supplier's catalogue is synced (it is also synced at start and on an admin's demand). */
      SUPPLIER_SYNC_MINUTES: z.coerce.number().positive().default(10),
      /** How long a public catalogue read stays cached (every change invalidates at once). */
      CATALOG_CACHE_SECONDS: z.coerce.number().int().positive().default(300),
    },
    env,
  );
}

export type CatalogConfig = ReturnType<typeof loadCatalogConfig>;
