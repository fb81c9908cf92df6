/**
 * Traces: the store runs as processes exporting spans over OTLP to a receiver in this test. One
 * order, sent with a trace context of the test's own, is followed from the gateway through
 * orders, catalog and wallet, over Kafka into the order.placed consumer, in one connected trace;
 * the services' log lines written for it carry its trace id.
 */
import fs from 'node:fs';
import type { App } from '../cluster';
import { eventually } from '@raseed/kit/testing';
import { startLoadStore } from '../cluster/load';
import { newTrace, SPAN_KIND, SpanReceiver } from '../cluster/spans';

const PORTS: Record<App, number> = {
  auth: 4961,
  wallet: 4962,
  catalog: 4963,
  orders: 4964,
  payments: 4965,
  gateway: 4960,
};

jest.setTimeout(5 * 60_000);

type Store = Awaited<ReturnType<typeof startLoadStore>>;
let receiver: SpanReceiver;
let store: Store;

beforeAll(async () => {
  receiver = await SpanReceiver.start();
  store = await startLoadStore({ auth: 1, wallet: 1, catalog: 1, orders: 1, payments: 1 }, PORTS, {
    ...receiver.env,
    LOG_LEVEL: 'info',
  });
}, 3 * 60_000);

afterAll(async () => {
  await store?.stop();
  await receiver?.close();
});

/** Places one order in a trace of the test's own (its `traceparent`); answers the trace's ids. */
async function tracedOrder({ api, adminToken }: Store) {
  const productId = await api.createdProduct(adminToken, 1);
  const [shopper] = await api.shoppers(1, 5, adminToken);
  const trace = newTrace();
  await api.order(shopper!.token, productId, { traceparent: trace.traceparent });
  return trace;
}

/**
 * Whether each app's log holds a line of the trace. A request's line is written once its answer
 * is sent, so it may land a moment after the client has the answer: each log gets 10 s.
 */
async function logged(cluster: Store['cluster'], traceId: string) {
  const apps = ['gateway', 'orders', 'wallet'] as const;
  const found = () =>
    Object.fromEntries(
      apps.map((app) => [
        app,
        fs.readFileSync(cluster.find(app).log, 'utf8').includes(`"traceId":"${traceId}"`),
      ]),
    );
  const all = async () => {
    const now = found();
    return apps.every((app) => now[app]) ? now : undefined;
  };
  return eventually(all, { timeoutMs: 10_000 }).catch(() => found());
}

it("follows one order's trace from the gateway through the services and over Kafka", async () => {
  const { traceId, root } = await tracedOrder(store);

  const has = (service: string, kind: number, name?: RegExp) =>
    receiver
      .trace(traceId)
      .some((s) => s.service === service && s.kind === kind && (!name || name.test(s.name)));
  const expected = () =>
    has('gateway', SPAN_KIND.server) &&
    has('orders', SPAN_KIND.server) &&
    has('catalog', SPAN_KIND.server) &&
    has('wallet', SPAN_KIND.server) &&
    has('orders', SPAN_KIND.consumer, /^order\.placed process$/) &&
    has('payments', SPAN_KIND.consumer, /^wallet\.debited process$/);
  const complete = await receiver.until(expected);
  const found = receiver.trace(traceId);
  const summary = found.map((s) => `${s.service} ${s.kind} ${s.name}`);
  expect({ complete, summary }).toEqual({ complete: true, summary: expect.any(Array) });

  // One tree: every span's parent is the test's root or another span of the trace.
  const ids = new Set([root, ...found.map((s) => s.spanId)]);
  expect(found.filter((s) => !ids.has(s.parentSpanId ?? ''))).toEqual([]);
  // The order.placed consumer continues the wallet relay's send of the event (born with the order's
  // debit), which continues the order request.
  const byId = new Map(found.map((s) => [s.spanId, s]));
  const consumer = found.find((s) => s.name === 'order.placed process')!;
  const publish = byId.get(consumer.parentSpanId!)!;
  expect(publish).toMatchObject({ service: 'wallet', name: 'order.placed publish' });

  // Log lines written inside the trace carry its id.
  expect(await logged(store.cluster, traceId)).toEqual({ gateway: true, orders: true, wallet: true });
});

it('carries trace ids into the logs by default, with spans sent nowhere', async () => {
  const ports = Object.fromEntries(
    Object.entries(PORTS).map(([app, port]) => [app, port + 20]),
  ) as typeof PORTS;
  const quiet = await startLoadStore({ auth: 1, wallet: 1, catalog: 1, orders: 1, payments: 1 }, ports, {
    LOG_LEVEL: 'info',
  });
  try {
    const { traceId } = await tracedOrder(quiet);
    expect(await logged(quiet.cluster, traceId)).toEqual({ gateway: true, orders: true, wallet: true });
    expect(receiver.trace(traceId)).toEqual([]);
  } finally {
    await quiet.stop();
  }
});
