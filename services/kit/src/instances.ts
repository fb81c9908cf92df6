import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * A service's address in the environment: one URL, or several separated by commas (one per
 * instance, as `npm start` hands them out with RASEED_INSTANCES).
 */
export const urlList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((url) => url.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().url()).min(1));

/** A service's address (see urlList), with the local default. */
export const serviceUrls = (fallback: string) => z.string().default(fallback).pipe(urlList);

/** How often instances are looked up by name and asked whether they are healthy. */
const PROBE_MS = 2_000;
const RESOLVE_MS = 5_000;

/**
 * The instances of one service and which of them answer. A URL naming a host (under docker
 * compose, the service's name) stands for every address that name resolves to, looked up
 * again every few seconds, so `docker compose up --scale orders=3` is found without
 * configuration. Each instance's /healthz is asked every two seconds; one that fails, or that
 * refused a connection, is left out until it answers again. With a single address nothing is
 * probed for routing (there is nothing to choose); it is probed only when its health is asked.
 */
export class Instances {
  private addresses: string[];
  /** What each URL naming a host last resolved to. */
  private readonly resolved = new Map<string, string[]>();
  private readonly down = new Set<string>();
  private next = 0;
  private timers: NodeJS.Timeout[] = [];
  private looked: Promise<void> = Promise.resolve();
  private checked?: Promise<void>;
  /** When a single address was last asked to probe (see health). */
  private probedAt = 0;

  constructor(
    readonly service: string,
    private readonly urls: string[],
  ) {
    this.addresses = [...urls];
  }

  /** Whether there may be more than one instance to choose from. */
  get several(): boolean {
    return this.urls.length > 1 || this.urls.some((url) => !literalHost(url));
  }

  /** Starts looking instances up and probing them; the timers never hold the process open. */
  start(): this {
    if (!this.several || this.timers.length) return this;
    this.looked = this.resolve();
    this.timers.push(
      setInterval(() => void this.resolve(), RESOLVE_MS).unref(),
      setInterval(() => void this.probe(), PROBE_MS).unref(),
    );
    return this;
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.checked = undefined;
  }

  /** Every known instance, healthy or not. */
  get all(): string[] {
    return [...this.addresses];
  }

  /** The healthy instances; all of them when none is known healthy (better to try than to refuse). */
  get healthy(): string[] {
    const up = this.addresses.filter((url) => !this.down.has(url));
    return up.length ? up : this.all;
  }

  /** The next instance in turn, other than those given when another is healthy. */
  pick(avoid: readonly string[] = []): string {
    const healthy = this.healthy;
    const choices = healthy.filter((url) => !avoid.includes(url));
    const from = choices.length ? choices : healthy;
    return from[this.next++ % from.length]!;
  }

  /** An instance refused a connection: left out until its health check answers again. */
  failed(url: string): void {
    if (this.several) this.down.add(url);
  }

  /**
   * How many instances answered their last health check, of how many are known. The first call
   * waits for a probe; later ones answer from the probes every two seconds. A single address is
   * probed only when its health is asked, at most every two seconds, for this count only: with
   * nothing to choose, routing takes it whatever it answers (see healthy), and a store nobody
   * asks about sends no probes.
   */
  async health(): Promise<{ up: number; total: number }> {
    if (this.several) this.checked ??= this.looked.then(() => this.probe());
    else if (!this.checked || Date.now() - this.probedAt >= PROBE_MS) {
      this.probedAt = Date.now();
      this.checked = this.probe();
    }
    await this.checked;
    const up = this.addresses.filter((url) => !this.down.has(url)).length;
    return { up, total: this.addresses.length };
  }

  private async resolve(): Promise<void> {
    const found = await Promise.all(
      this.urls.map(async (url) => {
        if (literalHost(url)) return [url];
        const parsed = new URL(url);
        const hosts = await lookup(parsed.hostname, { all: true }).catch(() => []);
        // A name that does not resolve right now keeps what it resolved to before.
        if (!hosts.length) return this.resolved.get(url) ?? [url];
        const addresses = hosts.map(({ address, family }) => {
          const at = new URL(url);
          at.hostname = family === 6 ? `[${address}]` : address;
          return at.toString().replace(/\/$/, '');
        });
        this.resolved.set(url, addresses);
        return addresses;
      }),
    );
    this.addresses = [...new Set(found.flat())];
  }

  private async probe(): Promise<void> {
    await Promise.all(
      this.addresses.map(async (url) => {
        const up = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
          (res) => res.ok,
          () => false,
        );
        if (up) this.down.delete(url);
        else this.down.add(url);
      }),
    );
  }
}

const literalHost = (url: string) => {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 || host === 'localhost';
};
