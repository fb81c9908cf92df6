import { loadConfig, runMain, startService } from '@raseed/kit';
import { Router } from 'express';
import { z } from 'zod';

const config = loadConfig({
  PORT: z.coerce.number().int().min(0).default(4002),
  MONGO_DB: z.string().default('raseed_wallet'),
});
// The wallet API arrives in a later issue; until then the service answers its health checks.
runMain(() => startService('wallet', config, async () => ({ routes: Router() })));
