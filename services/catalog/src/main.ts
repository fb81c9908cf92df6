import { loadConfig, runMain, startService } from '@raseed/kit';
import { Router } from 'express';
import { z } from 'zod';

const config = loadConfig({
  PORT: z.coerce.number().int().min(0).default(4003),
  MONGO_DB: z.string().default('raseed_catalog'),
});
// The catalog API arrives in a later issue; until then the service answers its health checks.
runMain(() => startService('catalog', config, async () => ({ routes: Router() })));
