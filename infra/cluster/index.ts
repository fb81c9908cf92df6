/**
 * The store as processes on this machine: the five services, each with one or more instances
 * on loopback ports of their own, and the gateway in front of them. `npm start` runs it
 * (start.ts); the scale test and the bench run it on ports and databases of their own.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const SERVICES = ['auth', 'wallet', 'catalog', 'orders', 'payments'] as const;
export type Service = (typeof SERVICES)[number];
export type App = Service | 'gateway';

const ROOT = path.resolve(__dirname, '..', '..');

/** The services' own ports; instance i of a service listens on its port + 10 i. */
export const DEFAULT_PORTS: Record<App, number> = {
  auth: 4001,
  wallet: 4002,
  catalog: 4003,
  orders: 4004,
  payments: 4005,
  gateway: 8080,
};
const INSTANCE_STEP = 10;
export const MAX_INSTANCES = 9;

/** RASEED_INSTANCES for every service, RASEED_INSTANCES_ORDERS (and so on) for one. */
export function instanceCounts(env: NodeJS.ProcessEnv): Record<Service, number> {
  const count = (name: string, fallback: number) => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > MAX_INSTANCES)
      throw new Error(`${name} must be a whole number from 1 to ${MAX_INSTANCES} (it is "${value}")`);
    return n;
  };
  const all = count('RASEED_INSTANCES', 1);
  return Object.fromEntries(
    SERVICES.map((service) => [service, count(`RASEED_INSTANCES_${service.toUpperCase()}`, all)]),
  ) as Record<Service, number>;
}

export interface ClusterOptions {
  instances: Record<Service, number>;
  /** Each app's first port (see DEFAULT_PORTS). */
  ports: Record<App, number>;
  /** Where each process writes its log (<app>-<instance>.log). */
  logs: string;
  /** Each app's environment, the same for all its instances (a service's instances share its data). */
  env: (app: App) => NodeJS.ProcessEnv;
}

/** One running process of the cluster. */
export interface Member {
  app: App;
  index: number;
  port: number;
  log: string;
  child?: ChildProcess;
  /** Set when the cluster stopped or killed it on purpose. */
  stopping?: boolean;
}

const urlOf = (port: number) => `http://127.0.0.1:${port}`;

export class Cluster {
  readonly members: Member[];
  /** Exits nobody asked for. */
  readonly crashes: string[] = [];

  constructor(readonly options: ClusterOptions) {
    this.members = [];
    for (const service of SERVICES) {
      for (let index = 0; index < options.instances[service]; index++) {
        this.members.push(this.member(service, index));
      }
    }
    this.members.push(this.member('gateway', 0));
  }

  private member(app: App, index: number): Member {
    const port = this.options.ports[app] + index * INSTANCE_STEP;
    return { app, index, port, log: path.join(this.options.logs, `${app}-${index + 1}.log`) };
  }

  get gatewayUrl(): string {
    return urlOf(this.options.ports.gateway);
  }

  /** The addresses of a service's instances, as the gateway and the other services are given them. */
  urls(service: Service): string {
    return this.members
      .filter((m) => m.app === service)
      .map((m) => urlOf(m.port))
      .join(',');
  }

  /** Every service's addresses, under the variable names the services and the gateway read. */
  private addresses(): NodeJS.ProcessEnv {
    return Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_URL`, this.urls(s)]));
  }

  find(app: App, index = 0): Member {
    const member = this.members.find((m) => m.app === app && m.index === index);
    if (!member) throw new Error(`${app} has no instance ${index + 1}`);
    return member;
  }

  /** Starts every process, services first, and answers once each one is ready. */
  async start(progress: (line: string) => void = () => undefined): Promise<void> {
    fs.mkdirSync(this.options.logs, { recursive: true });
    // Another process on a member's port would answer its readiness check in its stead.
    for (const member of this.members) {
      if (!(await portFree(member.port)))
        throw new Error(
          `port ${member.port} (${member.app} ${member.index + 1}) is taken by another process`,
        );
    }
    for (const member of this.members.filter((m) => m.app !== 'gateway')) this.spawn(member);
    // One at a time would take longer; all at once, then wait for each.
    for (const member of this.members.filter((m) => m.app !== 'gateway')) {
      await this.ready(member);
      progress(`  ${member.app} ${member.index + 1} on ${urlOf(member.port)} (log: ${member.log})`);
    }
    const gateway = this.find('gateway');
    this.spawn(gateway);
    await this.ready(gateway);
    progress(`  gateway on ${urlOf(gateway.port)} (log: ${gateway.log})`);
  }

  private spawn(member: Member): void {
    const log = fs.openSync(member.log, 'a');
    // RASEED_CPU_PROFILES=<dir>: each process writes a V8 CPU profile there when it stops (open it
    // in Chrome's DevTools, Performance tab); not allowed in NODE_OPTIONS, so it is passed here.
    const profiles = process.env.RASEED_CPU_PROFILES;
    const child = spawn(
      process.execPath,
      [
        ...(profiles ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profiles)}`] : []),
        path.join(ROOT, member.app === 'gateway' ? 'gateway' : `services/${member.app}`, 'dist/main.js'),
      ],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          ...this.options.env(member.app),
          ...this.addresses(),
          PORT: String(member.port),
          // The gateway's metrics port follows its port (8080: 9080), so two stores can run at once.
          ...(member.app === 'gateway' && { METRICS_PORT: String(member.port + 1000) }),
        },
        stdio: ['ignore', log, log],
      },
    );
    fs.closeSync(log);
    member.child = child;
    member.stopping = false;
    child.once('exit', (code, signal) => {
      if (!member.stopping)
        this.crashes.push(
          `${member.app} ${member.index + 1} exited (code ${code}, signal ${signal}); see ${member.log}`,
        );
    });
  }

  /** Waits until the member answers /readyz (the gateway: /healthz), or fails if it exits first. */
  async ready(member: Member, timeoutMs = 120_000): Promise<void> {
    const url = `${urlOf(member.port)}/${member.app === 'gateway' ? 'healthz' : 'readyz'}`;
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const child = member.child;
      if (!child || child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${member.app} ${member.index + 1} stopped while starting; see ${member.log}`);
      const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(
      `${member.app} ${member.index + 1} was not ready within ${timeoutMs / 1000} s; see ${member.log}`,
    );
  }

  /** The member's resident memory in kB (VmRSS), or undefined when it is not running. */
  residentKb(member: Member): number | undefined {
    const child = member.child;
    const pid = child?.pid;
    if (!child || pid === undefined || child.exitCode !== null || child.signalCode !== null) return undefined;
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
      if (kb) return Number(kb);
    } catch {
      // No /proc (macOS): ps tells the same.
    }
    const rss = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    return Number.isFinite(rss) && rss > 0 ? rss : undefined;
  }

  /** SIGKILL, answered once the process is gone. */
  async kill(member: Member): Promise<void> {
    await this.end(member, 'SIGKILL');
  }

  /** SIGTERM (it drains and exits), answered once the process is gone; SIGKILL after 15 s. */
  async halt(member: Member): Promise<void> {
    await this.end(member, 'SIGTERM');
  }

  /** Starts a member again on its port and answers once it is ready. */
  async restart(member: Member): Promise<void> {
    this.spawn(member);
    await this.ready(member);
  }

  /** SIGTERM to every process (each drains and exits), the gateway first; SIGKILL after 15 s. */
  async stop(): Promise<void> {
    const gateway = this.find('gateway');
    await this.end(gateway, 'SIGTERM');
    await Promise.all(this.members.filter((m) => m !== gateway).map((m) => this.end(m, 'SIGTERM')));
  }

  private async end(member: Member, signal: NodeJS.Signals): Promise<void> {
    const child = member.child;
    member.stopping = true;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const late = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(late);
  }

  /** Resolves with the first unexpected exit of any member. */
  exited(): Promise<string> {
    return new Promise((resolve) => {
      for (const member of this.members) {
        member.child?.once('exit', (code, signal) => {
          if (!member.stopping)
            resolve(
              `${member.app} ${member.index + 1} stopped unexpectedly (code ${code}, signal ${signal}); see ${member.log}`,
            );
        });
      }
    });
  }
}

/** Whether nothing listens on the loopback port yet. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
