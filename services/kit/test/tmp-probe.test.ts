import { loadConfig, startService } from '@raseed/kit';
import { testEnv, uniqueName } from '@raseed/kit/testing';
import { Router } from 'express';
import { z } from 'zod';

it('probe', async () => {
  const config = loadConfig({ PORT: z.coerce.number().default(0), MONGO_DB: z.string().default(uniqueName('raseed_kit_probe_')) }, testEnv('kit'));
  const routes = Router();
  routes.get('/slow', async (_req, res) => { await new Promise((r) => setTimeout(r, 500)); res.json({ done: true }); });
  const service = await startService('kit-test', config, async () => ({ routes }));
  for (const mode of ['fetch']) {
    const t0 = Date.now();
    const inFlight = fetch(`${service.url}/slow`).then((r) => { console.log('response at', Date.now() - t0, r.headers.get('connection')); return r; });
    await new Promise((r) => setTimeout(r, 100));
    service.server.on('close', () => console.log('server closed at', Date.now() - t0));
    const origRelayStop = service.relay.stop.bind(service.relay);
    service.relay.stop = async () => { const a = Date.now(); await origRelayStop(); console.log('relay stop took', Date.now() - a); };
    await service.stop();
    console.log(mode, 'stop resolved at', Date.now() - t0);
    await inFlight;
  }
});
