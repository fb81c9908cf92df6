import { dropDatabase, spawnService, testEnv } from '@raseed/kit/testing';
import type { ChildProcess } from 'node:child_process';
import { startTestCatalog, type TestCatalog } from '../../../services/catalog/test/support';
import { newUsers, type TestUser } from '../../../services/wallet/test/support';
import { FaultyProxy } from './proxy';
import type { Random } from './random';

/** Fixed ports, so a killed service comes back where its callers look for it. */
export const PORTS = { wallet: 4761, proxy: 4762, orders: 4763, payments: 4764 } as const;

export type ServiceName = 'wallet' | 'orders' | 'payments';

/** A service run as its own process, so it can be killed, paused and started again on its data. */
export class ServiceProcess {
  child: ChildProcess | undefined;
  paused = false;
  /** Exits nobody asked for: a service that dies by itself is a finding, not a fault. */
  readonly crashes: string[] = [];
  private killing = false;

  constructor(
    readonly name: ServiceName,
    readonly env: NodeJS.ProcessEnv,
    readonly port: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get main(): string {
    return `services/${this.name}/src/main.ts`;
  }

  async start(): Promise<void> {
    const child = await spawnService(this.main, this.env, this.port);
    child.once('exit', (code, signal) => {
      if (!this.killing) this.crashes.push(`${this.name} exited by itself (code ${code}, signal ${signal})`);
    });
    this.child = child;
    this.paused = false;
    this.killing = false;
  }

  /** SIGKILL, answered once the operating system has reported the process gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.killing = true;
    if (this.paused) child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
    this.paused = false;
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    this.child?.kill('SIGCONT');
    this.paused = false;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null && !this.paused;
  }

  async ready(): Promise<boolean> {
    return fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.ok,
      () => false,
    );
  }
}

export interface Stack {
  catalog: TestCatalog;
  proxy: FaultyProxy;
  services: Record<ServiceName, ServiceProcess>;
  serviceToken: string;
  customers: TestUser[];
  admins: TestUser[];
  stop(): Promise<void>;
}

/**
 * The store the chaos run drives: catalog (with its supplier simulator) in this process;
 * wallet, orders and payments as processes of their own on fixed ports; orders and payments
 * reach the wallet through a proxy that can delay or cut off its answers. Every service has
 * its own database and this file's Kafka topics.
 */
export async function startStack(random: Random, people: { customers: number }): Promise<Stack> {
  const catalog = await startTestCatalog();
  const proxy = new FaultyProxy(PORTS.wallet, random.fork('proxy'));
  await proxy.listen(PORTS.proxy);
  const walletUrl = `http://127.0.0.1:${PORTS.proxy}`;
  // Runs in one file share its topics: a run's new consumer groups start at the end of them, so
  // they never apply an earlier run's events (its payments, users) to this run's fresh databases.
  const fresh = { KAFKA_FROM_BEGINNING: 'false' };
  const services: Record<ServiceName, ServiceProcess> = {
    wallet: new ServiceProcess(
      'wallet',
      testEnv('wallet', { ...fresh, PORT: String(PORTS.wallet) }),
      PORTS.wallet,
    ),
    payments: new ServiceProcess(
      'payments',
      testEnv('payments', { ...fresh, PORT: String(PORTS.payments), WALLET_URL: walletUrl }),
      PORTS.payments,
    ),
    orders: new ServiceProcess(
      'orders',
      testEnv('orders', {
        ...fresh,
        PORT: String(PORTS.orders),
        WALLET_URL: walletUrl,
        CATALOG_URL: catalog.service.url,
        SUPPLIER_URL: catalog.sim.url,
        SUPPLIER_TIMEOUT_MS: '3000',
        ORDER_PLACEMENT_BACKOFF_MS: '200',
        ORDER_SYNC_SECONDS: '1',
        ORDER_REPAIR_AFTER_SECONDS: '2',
        // 36 s: an order the supplier keeps waiting on reaches the admins' stuck list within the run.
        ORDER_STUCK_HOURS: '0.01',
      }),
      PORTS.orders,
    ),
  };
  const stop = async () => {
    for (const service of Object.values(services)) await service.kill();
    await proxy.close();
    await catalog.stop();
    for (const service of Object.values(services))
      await dropDatabase(service.env.MONGO_DB as string).catch(() => undefined);
  };
  try {
    // One at a time: three processes compiling with tsx at once starve a 2-core machine.
    for (const service of Object.values(services)) await service.start();
    const admins = await newUsers(2, 'admin');
    const customers = await newUsers(people.customers);
    // The catalog syncs the supplier's products for an admin.
    const synced = await catalog.sync(`Bearer ${admins[0]!.token}`);
    if (synced.status !== 200) throw new Error(`the catalog sync answered ${synced.status}: ${synced.text}`);
    return { catalog, proxy, services, serviceToken: catalog.config.SERVICE_TOKEN, customers, admins, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
