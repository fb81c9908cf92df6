import { loadConfig } from '@raseed/kit';
import { z } from 'zod';

export function loadCatalogConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    {
      PORT: z.coerce.number().int().min(0).default(4003),
      MONGO_DB: z.string().default('raseed_catalog'),
      /** How often the supplier's catalogue is synced (it is also synced at start and on an admin's demand). */
      SUPPLIER_SYNC_MINUTES: z.coerce.number().positive().default(10),
      CATALOG_SYNC_WAIT_SECONDS: z.coerce.number().positive().default(20),
      /** How long a public catalogue read stays cached (every change invalidates at once). */
      CATALOG_CACHE_SECONDS: z.coerce.number().int().positive().default(300),
      /**
       * Where the page cache lives: a Redis database of its own, so cached pages can never evict
       * queues, limits or session ends (compose gives it a Redis of its own, bounded, LRU).
       */
      CACHE_REDIS_URL: z.string().url().default('redis://127.0.0.1:6379/1'),
    },
    env,
  );
}

export type CatalogConfig = ReturnType<typeof loadCatalogConfig>;
