/**
 * npm run test:scale: two instances of every service behind the gateway, as processes of their
 * own, under the bench's order load for 60 s; one orders instance and one wallet instance are
 * SIGKILLed in the middle and started again. Traffic goes on, clients retrying with their keys
 * succeed, no order is debited twice, and reconcile is clean.
 */
import { openDatabase } from '@raseed/kit/testing';
import type { App, Service } from '../cluster';
import { orderLoad, startLoadStore } from '../cluster/load';
import { loadWalletConfig } from '../../services/wallet/src/config';
import { runReconcile } from '../../services/wallet/src/reconcile';

const LOAD_SECONDS = Number(process.env.SCALE_SECONDS ?? 60);
const SHOPPERS = 50;
const FUNDS = 100;
const PRICE = 0.01;
const PORTS: Record<App, number> = {
  auth: 4901,
  wallet: 4902,
  catalog: 4903,
  orders: 4904,
  payments: 4905,
  gateway: 4900,
};

jest.setTimeout(15 * 60_000);

let store: Awaited<ReturnType<typeof startLoadStore>>;

beforeAll(async () => {
  store = await startLoadStore({ auth: 2, wallet: 2, catalog: 2, orders: 2, payments: 2 }, PORTS);
}, 5 * 60_000);

afterAll(() => store?.stop());

const seconds = (from: number, at: number) => ((at - from) / 1000).toFixed(1);

it('keeps taking orders while an orders and a wallet instance are killed and restarted', async () => {
  const { api, adminToken, cluster, env } = store;
  const productId = await api.createdProduct(adminToken, PRICE);
  const shoppers = await api.shoppers(SHOPPERS, FUNDS, adminToken);
  api.client.requests.length = 0;

  const orders2 = cluster.find('orders', 1);
  const wallet2 = cluster.find('wallet', 1);
  const started = Date.now();
  const kills: { at: number; back: number }[] = [];
  const faults = (async () => {
    await new Promise((r) => setTimeout(r, (LOAD_SECONDS / 3) * 1000));
    const at = Date.now();
    await Promise.all([cluster.kill(orders2), cluster.kill(wallet2)]);
    await new Promise((r) => setTimeout(r, (LOAD_SECONDS / 6) * 1000));
    await Promise.all([cluster.restart(orders2), cluster.restart(wallet2)]);
    kills.push({ at, back: Date.now() });
  })();
  const load = await orderLoad(api, shoppers, productId, LOAD_SECONDS);
  await faults;

  const failures = api.client.requests.filter((r) => r.status === 0 || r.status >= 500);
  const { at: killedAt, back } = kills[0]!;
  const health = (await (await fetch(`${cluster.gatewayUrl}/healthz`)).json()) as {
    instances: Record<Service, string>;
  };
  const p = (q: number) => load.latencies[Math.floor((q / 100) * (load.latencies.length - 1))]!.toFixed(0);
  console.log(
    [
      `[scale] ${load.placed.length} orders in ${LOAD_SECONDS} s (${load.perSecond.toFixed(1)} /s), p50 ${p(50)} ms, p99 ${p(99)} ms`,
      `[scale] orders 2 and wallet 2 SIGKILLed at ${seconds(started, killedAt)} s, back at ${seconds(started, back)} s`,
      `[scale] ${api.client.requests.length} requests, ${failures.length} without an answer or with a 5xx: ` +
        failures.map((f) => `${f.status || f.error} at ${seconds(started, f.start)} s`).join(', '),
      `[scale] instances after the restart: ${JSON.stringify(health.instances)}`,
    ].join('\n'),
  );

  // Traffic went on: orders were placed while the two instances were away.
  const during = api.client.requests.filter((r) => r.status === 201 && r.start > killedAt && r.end < back);
  expect(during.length).toBeGreaterThan(0);
  // Only requests in flight when an instance was killed may have failed; their retries succeeded.
  for (const failure of failures) {
    expect(failure.start).toBeLessThanOrEqual(killedAt + 5_000);
    expect(failure.end).toBeGreaterThanOrEqual(killedAt - 1_000);
  }
  expect(health.instances).toEqual({
    auth: '2/2',
    wallet: '2/2',
    catalog: '2/2',
    orders: '2/2',
    payments: '2/2',
  });
  expect(cluster.crashes).toEqual([]);

  // One order per key, each paid once: every shopper's balance is what their orders cost.
  const ordersDb = await openDatabase(env.orders.MONGO_DB!);
  try {
    const ids = new Set(load.placed.map((o) => o.orderId));
    expect(ids.size).toBe(load.placed.length);
    const paid = await ordersDb
      .collection('orders')
      .aggregate<{ _id: string; n: number }>([
        { $match: { paid: true } },
        { $group: { _id: '$userId', n: { $sum: 1 } } },
      ])
      .toArray();
    expect(paid.reduce((sum, u) => sum + u.n, 0)).toBe(load.placed.length);
  } finally {
    await ordersDb.close();
  }
  for (const [i, shopper] of shoppers.entries()) {
    const mine = load.placed.filter((o) => o.shopper === i).length;
    const { balance } = await api.call('balance', '/api/balance', { token: shopper.token });
    expect({ shopper: i, balance }).toEqual({
      shopper: i,
      balance: Number((FUNDS - mine * PRICE).toFixed(2)),
    });
  }

  const code = await runReconcile({
    ...loadWalletConfig(env.wallet),
    PAYMENTS_URL: cluster.urls('payments').split(','),
    ORDERS_URL: cluster.urls('orders').split(','),
  });
  expect(code).toBe(0);
});
