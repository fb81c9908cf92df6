/**
 * The processes of `npm start` (infra/start.sh installs, brings the infrastructure up and builds
 * first): the supplier simulator unless SUPPLIER_URL names a real supplier, each service's
 * instances (RASEED_INSTANCES, RASEED_INSTANCES_<SERVICE>) and the gateway, until Ctrl-C.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cluster, DEFAULT_PORTS, instanceCounts, SERVICES } from '.';

async function main(): Promise<void> {
  const logs = path.join(process.env.RASEED_DATA ?? path.join(os.homedir(), '.local/share/raseed'), 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const instances = instanceCounts(process.env);
  const gatewayPort = Number(process.env.GATEWAY_PORT ?? DEFAULT_PORTS.gateway);
  const cluster = new Cluster({
    instances,
    ports: { ...DEFAULT_PORTS, gateway: gatewayPort },
    logs,
    env: () => ({}),
  });

  // The services' default SUPPLIER_URL is the simulator on 4100; a real supplier's URL replaces it.
  const extra: { stop(): void }[] = [];
  if (!process.env.SUPPLIER_URL) {
    const log = path.join(logs, 'supplier-sim.log');
    const out = fs.openSync(log, 'a');
    const env = { ...process.env };
    delete env.PORT;
    const sim = spawn(process.execPath, [path.resolve(__dirname, '../supplier-sim/dist/main.js')], {
      env,
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    extra.push({ stop: () => sim.kill('SIGTERM') });
    console.log(`  supplier-sim (log: ${log})`);
  }

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\n== stopping');
    await cluster.stop();
    for (const other of extra) other.stop();
    process.exit(code);
  };
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));

  const plan = SERVICES.map((s) => `${s} ×${instances[s]}`).join(', ');
  console.log(`  ${plan}`);
  try {
    await cluster.start((line) => console.log(line));
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    return stop(1);
  }

  console.log(`
Raseed is running at http://localhost:${gatewayPort}   (Ctrl-C stops it)

The first admin is created from ADMIN_EMAIL and ADMIN_PASSWORD when no admin exists yet:
  ADMIN_EMAIL=${process.env.ADMIN_EMAIL ?? 'admin@raseed.local (default)'}
  ADMIN_PASSWORD=${process.env.ADMIN_PASSWORD ? '(from your environment)' : 'raseed-admin-password (default; set your own before the first start)'}
E-mails (password resets) are caught at http://127.0.0.1:1080
More instances of every service: RASEED_INSTANCES=2 npm start (or RASEED_INSTANCES_ORDERS=3 for one).`);
  const crash = await cluster.exited();
  console.error(crash);
  await stop(1);
}

void main();
