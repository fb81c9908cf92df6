/**
 * Customers of a running store, made through its gateway as the storefront makes them, and the
 * order loads the bench and the scale test put on it: each customer orders again as soon as
 * the last order is answered, each order under an Idempotency-Key of its own, sent again with
 * the same key after no answer or a 5xx; or orders arriving at a steady rate, each sent once.
 */
import { dropDatabase, testEnv, uniqueName } from '@raseed/kit/testing';
import { startSupplierSim } from '@raseed/supplier-sim';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '../test/chaos/client';
import { Cluster, SERVICES, type App, type Service } from '.';

const RECEIPT = fs.readFileSync(path.resolve(__dirname, '../../services/payments/test/fixtures/receipt.png'));
const PASSWORD = 'load-password-1';

export interface Shopper {
  email: string;
  token: string;
}

/** Answers `count` tasks' results, `concurrency` at a time. */
async function inTurn<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) results[i] = await task(i);
    }),
  );
  return results;
}

/** The store's API as the storefront calls it; every answer outside `expected` is thrown. */
export class StoreApi {
  readonly client = new Client();

  constructor(readonly url: string) {}

  async call(
    op: string,
    path: string,
    options: {
      token?: string;
      body?: object | FormData;
      method?: string;
      key?: string;
      headers?: Record<string, string>;
    },
    expected: number[] = [200, 201],
  ): Promise<Record<string, unknown>> {
    const answer = await this.client.retried('setup', op, `${this.url}${path}`, options, () => false);
    if (!expected.includes(answer.status))
      throw new Error(`${op} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  async signIn(email: string, password = PASSWORD): Promise<string> {
    const body = await this.call('sign in', '/api/signin', { body: { email, password } });
    return body.token as string;
  }

  /** Registers a customer (who signs in with the load's password); answers the e-mail. */
  async signUp(name: string): Promise<string> {
    const email = `${name}@example.com`;
    await this.call('sign up', '/api/signup', {
      body: { username: name, email, phone: '+961 70 123456', password: PASSWORD },
    });
    return email;
  }

  /** Signs customers up and in, and funds each wallet with a confirmed top-up of `dollars`. */
  async shoppers(count: number, dollars: number, adminToken: string): Promise<Shopper[]> {
    const run = randomUUID().slice(0, 8);
    return inTurn(count, 8, async (i) => {
      const email = await this.signUp(`load${run}${i}`);
      const token = await this.signIn(email);
      const form = new FormData();
      form.set('product_name', 'Binance');
      form.set('amount', String(dollars));
      // A receipt is taken by one top-up only, so each is a picture of its own.
      const receipt = Buffer.concat([RECEIPT, Buffer.from(randomUUID())]);
      form.set('image', new Blob([receipt], { type: 'image/png' }), 'receipt.png');
      const topUp = await this.call('top up', '/api/payments', { token, body: form, key: randomUUID() });
      const id = (topUp.payment as { id: string }).id;
      await this.call('confirm', `/api/payments/${id}/update-status`, {
        token: adminToken,
        method: 'PUT',
        body: { action: 'confirmed' },
      });
      for (let tries = 0; ; tries++) {
        const balance = await this.call('balance', '/api/balance', { token });
        if (balance.balance === dollars) break;
        if (tries > 200) throw new Error(`${email}'s top-up never reached the wallet`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return { email, token };
    });
  }

  /** Places one order of `productId` under a key of its own; answers the order's id. */
  async order(token: string, productId: string, headers: Record<string, string> = {}): Promise<string> {
    const body = { product_id: productId, quantity: 1, params: 'Account e-mail:a@b.c' };
    const placed = await this.call(
      'order',
      '/api/orders',
      { token, key: randomUUID(), body, headers },
      [201],
    );
    return placed.orderId as string;
  }

  /** A product admins fulfil by hand, at `price` dollars; answers its id. */
  async createdProduct(adminToken: string, price: number): Promise<string> {
    const form = new FormData();
    form.set('productName', `Load gift card ${randomUUID().slice(0, 6)}`);
    form.set('price', String(price));
    form.set('params', 'Account e-mail');
    form.set('category_name', 'Steam');
    form.set('image', new Blob([RECEIPT], { type: 'image/png' }), 'card.png');
    const body = await this.call('create product', '/api/create/product', { token: adminToken, body: form });
    return (body.product as { id: string }).id;
  }
}

export interface PlacedOrder {
  shopper: number;
  key: string;
  orderId: string;
  ms: number;
}

/**
 * `shoppers` customers ordering `productId` for `seconds`, each again as soon as answered.
 * An order's latency counts its retries. A 4xx is thrown: the load only places valid orders.
 */
export async function orderLoad(
  api: StoreApi,
  shoppers: Shopper[],
  productId: string,
  seconds: number,
): Promise<{ placed: PlacedOrder[]; perSecond: number; latencies: number[] }> {
  const placed: PlacedOrder[] = [];
  const started = Date.now();
  const end = started + seconds * 1000;
  await Promise.all(
    shoppers.map(async (shopper, i) => {
      while (Date.now() < end) {
        const key = randomUUID();
        const at = performance.now();
        // An order is followed to its answer even after the load's end (a minute at most).
        const answer = await api.client.retried(
          `customer ${i}`,
          'order',
          `${api.url}/api/orders`,
          {
            token: shopper.token,
            key,
            body: { product_id: productId, quantity: 1, params: 'Account e-mail:a@b.c' },
          },
          () => Date.now() > end + 60_000,
        );
        if (answer.status !== 201 && answer.status !== 200)
          throw new Error(`an order answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        placed.push({ shopper: i, key, orderId: answer.body.orderId as string, ms: performance.now() - at });
      }
    }),
  );
  const latencies = placed.map((p) => p.ms).sort((a, b) => a - b);
  return { placed, perSecond: placed.length / ((Date.now() - started) / 1000), latencies };
}

export interface SteadyLoad {
  /** Orders scheduled (each sent, answered or not). */
  sent: number;
  /** Latencies of the orders answered 201, from each one's scheduled arrival, sorted. */
  latencies: number[];
  /** Orders answered 201 per second, from the first arrival to the last answer. */
  perSecond: number;
  /** Orders not answered 201, by their answer ("no answer" when none came). */
  failures: Map<string, number>;
  /** The most an order was sent after its scheduled arrival (the caller's own delay). */
  lateMs: number;
}

/**
 * Orders of `productId` arriving at a steady `perSecond` for `seconds`, the shoppers in turn,
 * each sent once under a key of its own at its scheduled time, whether or not earlier orders
 * have been answered (an open loop). Latency runs from the scheduled arrival, so a slow
 * answer or a late send is counted rather than hidden by fewer arrivals.
 */
export async function steadyOrderLoad(
  api: StoreApi,
  shoppers: Shopper[],
  productId: string,
  perSecond: number,
  seconds: number,
): Promise<SteadyLoad> {
  const sent = Math.round(perSecond * seconds);
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const body = { product_id: productId, quantity: 1, params: 'Account e-mail:a@b.c' };
  const started = performance.now();
  let lastAnswer = started;
  let lateMs = 0;
  const answers: Promise<void>[] = [];
  for (let i = 0; i < sent; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lateMs = Math.max(lateMs, performance.now() - due);
    const shopper = shoppers[i % shoppers.length]!;
    answers.push(
      api.client
        .once(`customer ${i % shoppers.length}`, 'order', `${api.url}/api/orders`, {
          token: shopper.token,
          key: randomUUID(),
          body,
        })
        .then((answer) => {
          lastAnswer = Math.max(lastAnswer, performance.now());
          if (answer.status === 201) latencies.push(performance.now() - due);
          else {
            const kind = answer.status ? String(answer.status) : 'no answer';
            failures.set(kind, (failures.get(kind) ?? 0) + 1);
          }
        }),
    );
  }
  await Promise.all(answers);
  latencies.sort((a, b) => a - b);
  return { sent, latencies, perSecond: latencies.length / ((lastAnswer - started) / 1000), failures, lateMs };
}

/**
 * For a store whose CPU is measured over short windows: the supplier's catalogue is synced at
 * start only. Its sync every 10 minutes (about 0.3 s of catalog's CPU on the simulator's
 * catalogue) would otherwise land in a window whenever the clock passes a multiple of 10 minutes.
 */
export const SYNC_AT_START_ONLY = { SUPPLIER_SYNC_MINUTES: '600' };

/**
 * The whole store as processes, `instances` of each service, on `ports` (see Cluster), with
 * databases, topics and queues of its own and the supplier simulator; its first admin signed in.
 * `extra` is added to every process's environment.
 */
export async function startLoadStore(
  instances: Record<Service, number>,
  ports: Record<App, number>,
  extra: Record<string, string> = {},
) {
  const sim = await startSupplierSim();
  const admin = { email: `${uniqueName('load-admin')}@example.com`, password: 'load-admin-password' };
  const env = {} as Record<App, NodeJS.ProcessEnv>;
  for (const service of SERVICES) {
    env[service] = testEnv(service, {
      LOG_LEVEL: 'warn',
      // Relays woken by their writers, with the fallback poll of a store as operators run it.
      OUTBOX_POLL_MS: '1000',
      // The instances of a service share the partitions of its consumer group.
      KAFKA_PARTITIONS: '3',
      SUPPLIER_URL: sim.url,
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      ...extra,
    });
  }
  env.gateway = {
    NODE_ENV: 'test',
    // The pages' live streams follow this store's events.
    KAFKA_TOPIC_PREFIX: env.auth.KAFKA_TOPIC_PREFIX!,
    LOG_LEVEL: 'warn',
    AUTH_RATE_LIMIT: '10000',
    // The catalogue's pictures come from this store's own supplier simulator.
    IMAGE_ORIGINS: new URL(sim.url).origin,
    ...extra,
  };
  const cluster = new Cluster({
    instances,
    ports,
    logs: fs.mkdtempSync(path.join(os.tmpdir(), 'raseed-cluster-')),
    env: (app) => env[app],
  });
  const stop = async () => {
    await cluster.stop();
    await sim.stop();
    for (const service of SERVICES) await dropDatabase(env[service].MONGO_DB!).catch(() => undefined);
  };
  try {
    await cluster.start();
    const api = new StoreApi(cluster.gatewayUrl);
    const adminToken = await api.signIn(admin.email, admin.password);
    return { cluster, env, api, adminToken, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
