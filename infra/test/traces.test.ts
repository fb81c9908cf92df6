/**
 * Traces: the store runs as processes exporting spans over OTLP to a receiver in this test. One
 * order, sent with a trace context of the test's own, is followed from the gateway through
 * orders, catalog and wallet, over Kafka into the order.placed consumer, in one connected trace;
 * the services' log lines written for it carry its trace id.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../cluster';
import { startLoadStore } from '../cluster/load';

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}

/** OTLP/HTTP JSON, as the services' exporter sends it. */
interface ExportRequest {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: Omit<ReceivedSpan, 'service'>[] }[];
  }[];
}

const PORTS: Record<App, number> = {
  auth: 4961,
  wallet: 4962,
  catalog: 4963,
  orders: 4964,
  payments: 4965,
  gateway: 4960,
};
/** OTLP span kinds. */
const SERVER = 2;
const CONSUMER = 5;

jest.setTimeout(5 * 60_000);

const spans: ReceivedSpan[] = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as ExportRequest;
    for (const { resource, scopeSpans } of body.resourceSpans) {
      const service = resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
      for (const scope of scopeSpans) for (const span of scope.spans) spans.push({ ...span, service });
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let store: Store;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  store = await startLoadStore({ auth: 1, wallet: 1, catalog: 1, orders: 1, payments: 1 }, PORTS, {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    LOG_LEVEL: 'info',
  });
}, 3 * 60_000);

afterAll(async () => {
  await store?.stop();
  receiver.close();
});

type Store = Awaited<ReturnType<typeof startLoadStore>>;

/** Places one order in a trace of the test's own (its `traceparent`); answers the trace's ids. */
async function tracedOrder({ api, adminToken }: Store) {
  const productId = await api.createdProduct(adminToken, 1);
  const [shopper] = await api.shoppers(1, 5, adminToken);
  const traceId = randomBytes(16).toString('hex');
  const root = randomBytes(8).toString('hex');
  const res = await fetch(`${api.url}/api/orders`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${shopper!.token}`,
      'content-type': 'application/json',
      'x-requested-with': 'XMLHttpRequest',
      'idempotency-key': randomBytes(8).toString('hex'),
      traceparent: `00-${traceId}-${root}-01`,
    },
    body: JSON.stringify({ product_id: productId, quantity: 1, params: 'Account e-mail:a@b.c' }),
  });
  expect(res.status).toBe(201);
  return { traceId, root };
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
  for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    if (apps.every((app) => found()[app])) break;
  }
  return found();
}

it("follows one order's trace from the gateway through the services and over Kafka", async () => {
  const { traceId, root } = await tracedOrder(store);

  const inTrace = () => spans.filter((s) => s.traceId === traceId);
  const has = (service: string, kind: number, name?: RegExp) =>
    inTrace().some((s) => s.service === service && s.kind === kind && (!name || name.test(s.name)));
  const expected = () =>
    has('gateway', SERVER) &&
    has('orders', SERVER) &&
    has('catalog', SERVER) &&
    has('wallet', SERVER) &&
    has('orders', CONSUMER, /^order\.placed process$/) &&
    has('payments', CONSUMER, /^wallet\.debited process$/);
  for (const until = Date.now() + 30_000; !expected() && Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 200));
  }
  const found = inTrace();
  const summary = found.map((s) => `${s.service} ${s.kind} ${s.name}`);
  expect({ complete: expected(), summary }).toEqual({ complete: true, summary: expect.any(Array) });

  // One tree: every span's parent is the test's root or another span of the trace.
  const ids = new Set([root, ...found.map((s) => s.spanId)]);
  expect(found.filter((s) => !ids.has(s.parentSpanId ?? ''))).toEqual([]);
  // The order.placed consumer continues the relay's send of the event, which continues the order request.
  const byId = new Map(found.map((s) => [s.spanId, s]));
  const consumer = found.find((s) => s.name === 'order.placed process')!;
  const publish = byId.get(consumer.parentSpanId!)!;
  expect(publish).toMatchObject({ service: 'orders', name: 'order.placed publish' });

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
    expect(spans.filter((s) => s.traceId === traceId)).toEqual([]);
  } finally {
    await quiet.stop();
  }
});
