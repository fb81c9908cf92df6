/**
 * npm run bench: speed and capacity figures, measured on this machine's local
 * infrastructure. It prints; it never fails for being slow.
 */
import { signSession, toMicros } from '@raseed/kit';
import { createLogger, redisConnection } from '@raseed/kit';
import {
  deleteTestBuckets,
  deleteTopics,
  dropDatabase,
  openDatabase,
  publishEvents,
  testEnv,
  TEST_RUN,
  TEST_TOPIC_PREFIX,
} from '@raseed/kit/testing';
import autocannon from 'autocannon';
import express from 'express';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { Types } from 'mongoose';
import supertest from 'supertest';
import { createGateway } from '../../gateway/src/app';
import { loadGatewayConfig } from '../../gateway/src/config';
import { startSupplierSim } from '../supplier-sim/src';
import { orderLoad, startLoadStore, steadyOrderLoad, SYNC_AT_START_ONLY } from '../cluster/load';
import { ACCEPT_ENCODINGS, closeClient, get, sendJson } from './client';
import { BARE_PROXY_ROLE, cpuByRole, cpuSpent, LOAD_ROLE, untilIdle } from './cpu';
import { grownStoreFigures } from './grown';
import { phoneFigures } from './phone';
import { newTrace, SPAN_KIND, SpanReceiver, type ReceivedSpan } from '../cluster/spans';
import { loadCatalogConfig } from '../../services/catalog/src/config';
import { startCatalog } from '../../services/catalog/src/service';
import { loadOrdersConfig } from '../../services/orders/src/config';
import { startOrders } from '../../services/orders/src/service';
import { loadPaymentsConfig } from '../../services/payments/src/config';
import { startPayments } from '../../services/payments/src/service';
import { RECEIPT } from '../../services/payments/test/support';
import { loadWalletConfig } from '../../services/wallet/src/config';
import { runReconcile } from '../../services/wallet/src/reconcile';
import { startWallet } from '../../services/wallet/src/service';

const CONCURRENCY = 16;
const CLUSTER_SECONDS = 30;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Runs `count` tasks, `concurrency` at a time; answers the rate per second. */
async function rate(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await task(i);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

function user(role: 'user' | 'admin', secret: string) {
  const id = new Types.ObjectId().toString();
  const username = `bench-${id.slice(-8)}`;
  const token = signSession(
    { id, username, email: `${username}@example.com`, role, phone: '1', percentage: null },
    secret,
    3600,
  );
  return { id, username, role, token, auth: { Authorization: `Bearer ${token}` } };
}

/** Every figure printed, under the heading it was printed under, for BENCHMARKS.md. */
const figures: { section: string; label: string; value: string }[] = [];
let section = '';

/** Prints a heading; the figures after it belong to it. */
function heading(title: string): void {
  section = title;
  console.log(`\n${title}`);
}

function line(label: string, value: string): void {
  figures.push({ section, label, value });
  console.log(`  ${label.padEnd(58)} ${value}`);
}

/** BENCHMARKS.md: this run's figures as one table, with the machine and the command. */
function writeBenchmarks(started: Date): void {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const cpus = os.cpus();
  const rows = figures.map((f) => `| ${cell(f.section)} | ${cell(f.label)} | ${cell(f.value)} |`);
  const text = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (infra/bench/index.ts) on its last run; it never fails for being slow.',
    'Every process (the bench, the services, the store, Kafka, Redis) shares the machine, so compare',
    'the ratios across machines rather than the rates.',
    '',
    `- run: ${started.toISOString()} to ${new Date().toISOString()}`,
    `- machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`,
    '- command: `npm run bench`',
    '',
    '| section | figure | value |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  fs.writeFileSync(path.resolve(__dirname, '../../BENCHMARKS.md'), text);
  console.log('\nwritten to BENCHMARKS.md');
}

function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

/** Requests per second and latency of GET `url`, `count` requests, `concurrency` at a time, over keep-alive. */
async function readLoad(url: string, count: number, concurrency = CONCURRENCY) {
  const latencies: number[] = [];
  const perSecond = await rate(count, concurrency, async () => {
    const started = performance.now();
    const res = await get(url);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    latencies.push(performance.now() - started);
  });
  latencies.sort((a, b) => a - b);
  return { perSecond, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** The supplier sync at 10,000 products, and a category page read through the gateway next to a bare Express app. */
async function catalogFigures() {
  const sim = await startSupplierSim({ products: 10_000 });
  const config = loadCatalogConfig(
    testEnv('catalog', {
      SUPPLIER_URL: sim.url,
      SUPPLIER_SYNC_MINUTES: '600',
      CATALOG_SYNC_WAIT_SECONDS: '600',
    }),
  );
  const catalog = await startCatalog(config);
  const redis = redisConnection(config.REDIS_URL);
  const gatewayConfig = loadGatewayConfig({
    NODE_ENV: 'test',
    CATALOG_URL: catalog.url,
    AUTH_URL: 'http://127.0.0.1:9',
    WALLET_URL: 'http://127.0.0.1:9',
    ORDERS_URL: 'http://127.0.0.1:9',
    PAYMENTS_URL: 'http://127.0.0.1:9',
  });
  const gateway = await listen(createGateway(gatewayConfig, redis, createLogger('gateway', 'silent')));
  const admin = user('admin', config.JWT_SECRET);
  try {
    process.stderr.write('  syncing 10,000 supplier products…\n');
    const sync = await supertest(catalog.url).post('/api/catalog/sync').set(admin.auth);
    if (sync.status !== 200)
      throw new Error(`the sync answered ${sync.status}: ${JSON.stringify(sync.body)}`);
    const pageUrl = `${gateway.url}/api/catalog/category/PUBG%20Mobile`;
    // The bare app sends the very bytes the gateway sent, in the coding it chose for this client.
    const { headers, bytes } = await get(pageUrl);
    const coding = typeof headers['content-encoding'] === 'string' ? headers['content-encoding'] : undefined;
    const body =
      coding === 'br' ? zlib.brotliDecompressSync(bytes) : coding === 'gzip' ? zlib.gunzipSync(bytes) : bytes;
    const bare = await listen(
      express().get('/page', (_req, res) => {
        if (coding) res.setHeader('content-encoding', coding);
        res.type('json').send(bytes);
      }),
    );
    try {
      await readLoad(pageUrl, 200);
      await readLoad(`${bare.url}/page`, 200);
      const store = await readLoad(pageUrl, 2000);
      const baseline = await readLoad(`${bare.url}/page`, 2000);
      heading('Catalogue (supplier simulator with 10,000 products)');
      line(
        'supplier sync, 10,000 products into an empty catalogue',
        `${(sync.body.durationMs / 1000).toFixed(1)} s`,
      );
      line(
        `category page through the gateway (${(body.length / 1024).toFixed(0)} kB, 2000 reads)`,
        `${store.perSecond.toFixed(0)} /s, p50 ${store.p50.toFixed(1)} ms, p99 ${store.p99.toFixed(1)} ms`,
      );
      line(
        `the same bytes from a bare Express app (${coding ?? 'uncompressed'})`,
        `${baseline.perSecond.toFixed(0)} /s, p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms`,
      );
      line('ratio', `${((store.perSecond / baseline.perSecond) * 100).toFixed(1)}% of the bare app's rate`);
    } finally {
      bare.server.close();
    }
  } finally {
    gateway.server.close();
    redis.disconnect();
    await catalog.stop();
    await sim.stop();
    await dropDatabase(config.MONGO_DB);
  }
}

/** Runs `task` with `concurrency` callers for `ms`; answers how many ran and their latencies. */
async function runFor(ms: number, concurrency: number, task: (i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const end = started + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const at = performance.now();
        await task(next++);
        latencies.push(performance.now() - at);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), latencies };
}

const ORDER_USERS = 50;
const ORDER_SECONDS = 30;
const SYNCED_ORDERS = 5000;

/**
 * Orders placed per second by 50 customers for 30 s (each: the product priced by catalog,
 * the order inserted, the wallet's debit, the order marked paid with its event), next to
 * the same writes made directly on the store; then the wallet's reconcile, and the status
 * sync of 5,000 waiting supplier orders.
 */
async function orderFigures(
  wallet: { url: string; config: ReturnType<typeof loadWalletConfig> },
  paymentsUrl: string,
  customers: { auth: Record<string, string> }[],
  scratch: Awaited<ReturnType<typeof openDatabase>>,
) {
  const sim = await startSupplierSim();
  const catalogConfig = loadCatalogConfig(testEnv('catalog', { SUPPLIER_URL: sim.url }));
  const catalog = await startCatalog(catalogConfig);
  const ordersConfig = loadOrdersConfig(
    testEnv('orders', {
      WALLET_URL: wallet.url,
      CATALOG_URL: catalog.url,
      SUPPLIER_URL: sim.url,
      ORDER_SYNC_SECONDS: '3600',
      ORDER_SYNC_WAIT_SECONDS: '600',
    }),
  );
  const orders = await startOrders(ordersConfig);
  const admin = user('admin', catalogConfig.JWT_SECRET);
  try {
    const created = await supertest(catalog.url)
      .post('/api/create/product')
      .set(admin.auth)
      .field('productName', 'Bench gift card')
      .field('price', '0.01')
      .field('params', 'Account e-mail')
      .field('category_name', 'Steam')
      .attach('image', RECEIPT);
    if (created.status !== 201) throw new Error(`creating the product answered ${created.status}`);
    const draft = {
      product_id: created.body.product.id as string,
      quantity: 1,
      params: 'Account e-mail:a@b.c',
    };
    const place = (i: number) =>
      sendJson('POST', `${orders.url}/api/orders`, draft, customers[i % ORDER_USERS]!.auth).then((res) => {
        if (res.status !== 201)
          throw new Error(`an order answered ${res.status}: ${JSON.stringify(res.body)}`);
      });
    await rate(50, CONCURRENCY, place);
    process.stderr.write(`  placing orders for ${ORDER_SECONDS} s…\n`);
    const placed = await runFor(ORDER_SECONDS * 1000, ORDER_USERS, place);

    // The same writes straight on the store: the order, a ledger entry, the order marked paid.
    const rawOrders = scratch.collection('orders');
    const rawEntries = scratch.collection('entries');
    await rawEntries.createIndex({ account: 1, seq: 1 }, { unique: true });
    const raw = await runFor(10_000, ORDER_USERS, async (i) => {
      const { insertedId } = await rawOrders.insertOne({ user: i % ORDER_USERS, total: 10_000, paid: false });
      await rawEntries.insertOne({
        account: `a${i % ORDER_USERS}`,
        seq: i,
        key: `order:${String(insertedId)}`,
      });
      await rawOrders.updateOne({ _id: insertedId }, { $set: { paid: true } });
    });
    heading(`Orders (a created product, ${ORDER_USERS} customers at once for ${ORDER_SECONDS} s)`);
    line(
      `orders placed (${placed.latencies.length})`,
      `${placed.perSecond.toFixed(0)} /s, p50 ${percentile(placed.latencies, 50).toFixed(0)} ms, p99 ${percentile(placed.latencies, 99).toFixed(0)} ms`,
    );
    line(
      'the same writes straight on the store (order, entry, paid)',
      `${raw.perSecond.toFixed(0)} /s  (orders reach ${((placed.perSecond / raw.perSecond) * 100).toFixed(1)}% of it)`,
    );
    const code = await runReconcile({ ...wallet.config, PAYMENTS_URL: [paymentsUrl] });
    line('wallet reconcile after the orders', code === 0 ? 'clean' : 'MISMATCHES (see above)');

    // Status sync: 5,000 waiting orders the supplier took, all completed there.
    const product = sim.control.products.find((p) => p.available && !p.qtyValues && p.params.length === 1)!;
    const now = new Date();
    const waiting = Array.from({ length: SYNCED_ORDERS }, () => {
      const _id = new Types.ObjectId();
      const at = sim.control.place(
        { productId: String(product.id), uuid: _id.toString(), fields: { [product.params[0]!]: 'p' } },
        { kind: 'complete' },
      );
      return {
        _id,
        userId: new Types.ObjectId().toString(),
        username: 'bench',
        productId: `p-${product.id}`,
        productName: product.name,
        kind: 'supplier',
        supplierId: String(product.id),
        quantity: 1,
        unitPrice: product.priceMicros,
        total: product.priceMicros,
        params: `${product.params[0]}:p`,
        fields: { [product.params[0]!]: 'p' },
        status: 'waiting',
        paid: true,
        failed: null,
        replay: null,
        externalId: at.orderId,
        reason: null,
        createdAt: now,
        decidedAt: null,
        outbox: [],
      };
    });
    const ordersDb = await openDatabase(ordersConfig.MONGO_DB);
    await ordersDb.collection('orders').insertMany(waiting);
    await ordersDb.close();
    process.stderr.write(`  syncing the status of ${SYNCED_ORDERS} waiting orders…\n`);
    const started = performance.now();
    const synced = await supertest(orders.url).post('/api/orders/api-sync').set(admin.auth);
    const seconds = (performance.now() - started) / 1000;
    if (synced.status !== 200 || synced.body.confirmed !== SYNCED_ORDERS) {
      throw new Error(`the status sync answered ${synced.status}: ${JSON.stringify(synced.body)}`);
    }
    line(
      `status sync of ${SYNCED_ORDERS} waiting supplier orders (all completed)`,
      `${seconds.toFixed(1)} s (${(SYNCED_ORDERS / seconds).toFixed(0)} orders /s)`,
    );
  } finally {
    await orders.stop();
    await catalog.stop();
    await sim.stop();
    await dropDatabase(ordersConfig.MONGO_DB);
    await dropDatabase(catalogConfig.MONGO_DB);
  }
}

const FRONTEND_DIST = path.resolve(__dirname, '../../frontend/dist');

/** The JavaScript a first visit to / loads: the entry scripts and the modules they preload, per index.html. */
export function storefrontFigures(dist = FRONTEND_DIST) {
  heading('Storefront (frontend/dist)');
  const index = path.join(dist, 'index.html');
  if (!fs.existsSync(index)) {
    line('initial JavaScript for / (gzip)', 'skipped: the storefront is not built (npm run build)');
    return;
  }
  const html = fs.readFileSync(index, 'utf8');
  const attribute = (tag: string, name: string) => new RegExp(`\\s${name}=["']?([^"'\\s>]+)`).exec(tag)?.[1];
  const initial = new Set<string>();
  for (const [tag] of html.matchAll(/<(?:script|link)\b[^>]*>/g)) {
    const src =
      attribute(tag, 'type') === 'module'
        ? attribute(tag, 'src')
        : attribute(tag, 'rel') === 'modulepreload'
          ? attribute(tag, 'href')
          : undefined;
    // Only files the build made; a script from elsewhere is not in dist.
    if (src?.startsWith('/')) initial.add(path.join(dist, src));
  }
  const gzipped = (file: string) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
  const sum = (files: Iterable<string>) => [...files].reduce((total, file) => total + gzipped(file), 0);
  const assets = path.join(dist, 'assets');
  const allJs = fs.existsSync(assets)
    ? fs
        .readdirSync(assets)
        .filter((name) => name.endsWith('.js'))
        .map((name) => path.join(assets, name))
    : [];
  const initialBytes = sum(initial);
  const allBytes = sum(allJs);
  const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
  line(
    `initial JavaScript for / (gzip, ${initial.size} file${initial.size === 1 ? '' : 's'})`,
    `${kB(initialBytes)}  (initial is ${allBytes ? ((initialBytes / allBytes) * 100).toFixed(0) : 0}% of all JS, ${kB(allBytes)} in ${allJs.length} files)`,
  );
}

/** The ports of the store the sections below start as processes, one section at a time. */
const STORE_PORTS = { gateway: 4950, auth: 4951, wallet: 4952, catalog: 4953, orders: 4954, payments: 4955 };

/**
 * Orders per second through the gateway with one and with two instances of every service, each
 * a process of its own (the scale test's store), 50 customers ordering in a closed loop.
 */
export async function clusterFigures() {
  heading(
    `Scale-out (50 customers ordering through the gateway for ${CLUSTER_SECONDS} s; every process on this machine's ${os.cpus().length} cores)`,
  );
  const rates: number[] = [];
  for (const n of [1, 2]) {
    const instances = { auth: n, wallet: n, catalog: n, orders: n, payments: n };
    process.stderr.write(`  starting the store with ${n} instance(s) of each service…\n`);
    const store = await startLoadStore(instances, STORE_PORTS);
    try {
      const productId = await store.api.createdProduct(store.adminToken, 0.01);
      const shoppers = await store.api.shoppers(50, 100, store.adminToken);
      await orderLoad(store.api, shoppers, productId, 5);
      const load = await orderLoad(store.api, shoppers, productId, CLUSTER_SECONDS);
      const failed = store.api.client.requests.filter((r) => r.status === 0 || r.status >= 500).length;
      rates.push(load.perSecond);
      line(
        `${n} instance${n > 1 ? 's' : ''} of each service (${load.placed.length} orders)`,
        `${load.perSecond.toFixed(1)} /s, p50 ${percentile(load.latencies, 50).toFixed(0)} ms, p99 ${percentile(load.latencies, 99).toFixed(0)} ms${failed ? `, ${failed} failed attempts` : ''}`,
      );
    } finally {
      await store.stop();
    }
  }
  line('ratio', `two instances of each reach ${((rates[1]! / rates[0]!) * 100).toFixed(0)}% of one's rate`);
}

const BREAKDOWN_ORDERS = 200;

/**
 * Where one order's time goes, from its trace: orders placed one at a time (no queueing), each
 * in a trace of its own, through the store running as processes that export every span. Each
 * step is summed per order (a step made twice counts twice) and the median over the orders is
 * shown, longest first; a call to another service is named by what answered it.
 */
export async function breakdownFigures() {
  heading(
    `One order, step by step (traces of ${BREAKDOWN_ORDERS} orders placed one at a time; median per order)`,
  );
  const receiver = await SpanReceiver.start();
  process.stderr.write('  starting the store, exporting its spans…\n');
  const store = await startLoadStore(
    { auth: 1, wallet: 1, catalog: 1, orders: 1, payments: 1 },
    STORE_PORTS,
    receiver.env,
  );
  const traces: string[] = [];
  try {
    const productId = await store.api.createdProduct(store.adminToken, 0.01);
    const [shopper] = await store.api.shoppers(1, 100, store.adminToken);
    for (let i = 0; i < 20; i++) await store.api.order(shopper!.token, productId);
    for (let i = 0; i < BREAKDOWN_ORDERS; i++) {
      const trace = newTrace();
      await store.api.order(shopper!.token, productId, { traceparent: trace.traceparent });
      traces.push(trace.traceId);
    }
    await receiver.until(() =>
      traces.every((id) => receiver.trace(id).some((s) => s.name === 'order.placed process')),
    );
  } finally {
    await store.stop();
    await receiver.close();
  }
  const steps = new Map<string, number[]>();
  const add = (step: string, order: number, ms: number) => {
    const perOrder = steps.get(step) ?? Array.from({ length: traces.length }, () => 0);
    perOrder[order]! += ms;
    steps.set(step, perOrder);
  };
  traces.forEach((id, order) => {
    const spans = receiver.trace(id);
    const answeredBy = (client: ReceivedSpan) =>
      spans.find((s) => s.parentSpanId === client.spanId && s.kind === SPAN_KIND.server);
    const named = (name: string) => spans.find((s) => s.name === name);
    for (const span of spans) {
      const served = span.kind === SPAN_KIND.client && answeredBy(span);
      const step = served
        ? `${span.service} → ${served.service}: ${served.name}`
        : `${span.service}: ${span.name}`;
      add(step, order, span.end - span.start);
    }
    // The event is born in the insert of the order's debit entry, which wakes the wallet's relay.
    const born = spans.find((s) => s.service === 'wallet' && s.name === 'insert entries');
    const [publish, consumed] = [named('order.placed publish'), named('order.placed process')];
    if (born && publish)
      add('relay delay: order.placed born (debit inserted) → sent', order, publish.start - born.end);
    if (publish && consumed)
      add('Kafka: order.placed sent → its consumer starts', order, consumed.start - publish.end);
  });
  const medians = [...steps]
    .map(([step, perOrder]) => ({
      step,
      ms: percentile(
        [...perOrder].sort((a, b) => a - b),
        50,
      ),
    }))
    .sort((a, b) => b.ms - a.ms);
  for (const { step, ms } of medians.slice(0, 30)) line(step, `${ms.toFixed(2)} ms`);
}

/** A positive number from the environment (a shorter run while trying the bench), or `fallback`. */
function knob(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!(n > 0)) throw new Error(`${name} must be a positive number (it is "${value}")`);
  return n;
}

const STEADY_RATE = knob('BENCH_STEADY_RATE', 20);
const STEADY_SECONDS = knob('BENCH_STEADY_SECONDS', 30);
/** Seconds each side of the comparison is read first (5,000 requests and more): V8 has compiled its optimized code by then (see gatewayOverheadFigures). */
const OVERHEAD_WARM_UP_SECONDS = 2;
/** Rounds of each side, taken in turn, and seconds a round. */
const OVERHEAD_ROUNDS = 4;
const OVERHEAD_ROUND_SECONDS = 2.5;
const OVERHEAD_CONNECTIONS = 20;
/** Public, and answered by payments from its configuration: no store, no cache, no other service. */
const OVERHEAD_PATH = '/api/payments/methods';
const MEMORY_TARGET_MB = 1.5 * 1024;
/** The grown store's history, at the size of its targets (about 4 minutes to seed; smaller by these variables for quick runs). */
const GROWN = {
  orders: knob('BENCH_GROWN_ORDERS', 1_000_000),
  entries: knob('BENCH_GROWN_ENTRIES', 1_000_000),
  payments: knob('BENCH_GROWN_PAYMENTS', 200_000),
};

type LoadStore = Awaited<ReturnType<typeof startLoadStore>>;

/** How long the store's CPU is read at rest, before the steady load. */
const REST_SECONDS = 10;

/** The store's own processes, the load's left out. */
const storeRoles = (cpu: [string, number][]) => cpu.filter(([role]) => role !== LOAD_ROLE);
const secondsOf = (cpu: [string, number][]) => cpu.reduce((sum, [, seconds]) => sum + seconds, 0);

/**
 * Orders arriving at a steady rate through the gateway, whether or not earlier ones were
 * answered (an open loop, as customers arrive), one instance of each service.
 */
async function steadyOrderFigures(store: LoadStore) {
  const productId = await store.api.createdProduct(store.adminToken, 0.01);
  const shoppers = await store.api.shoppers(50, 100, store.adminToken);
  await steadyOrderLoad(store.api, shoppers, productId, STEADY_RATE, 5);
  process.stderr.write(`  orders arriving at ${STEADY_RATE} /s for ${STEADY_SECONDS} s…\n`);
  // The setup's own background work (the top-ups' events and uploads) is done before counting.
  await untilIdle();
  // What the store spends with nothing to do (its pollers, heartbeats and health checks).
  const restBefore = cpuByRole();
  await new Promise((resolve) => setTimeout(resolve, REST_SECONDS * 1000));
  const atRest = secondsOf(storeRoles(cpuSpent(restBefore, cpuByRole()))) / REST_SECONDS;
  const cpuBefore = cpuByRole();
  const load = await steadyOrderLoad(store.api, shoppers, productId, STEADY_RATE, STEADY_SECONDS);
  const idleAfter = await untilIdle();
  const cpu = cpuSpent(cpuBefore, cpuByRole());
  heading(
    `Orders at a steady ${STEADY_RATE} /s (open loop for ${STEADY_SECONDS} s through the gateway, 50 customers; latency from each order's scheduled arrival, so a slow answer hides no arrival)`,
  );
  const failed = [...load.failures.values()].reduce((sum, n) => sum + n, 0);
  line(
    'orders placed',
    `${load.latencies.length} of ${load.sent}  (sent at most ${load.lateMs.toFixed(0)} ms after their arrival)`,
  );
  line(
    'achieved rate',
    `${load.perSecond.toFixed(1)} /s  (${((load.perSecond / STEADY_RATE) * 100).toFixed(0)}% of the arrivals' rate)`,
  );
  line(
    'latency from the scheduled arrival',
    `p50 ${percentile(load.latencies, 50).toFixed(0)} ms, p99 ${percentile(load.latencies, 99).toFixed(0)} ms`,
  );
  line(
    'failures',
    failed ? `${failed} (${[...load.failures].map(([answer, n]) => `${n} × ${answer}`).join(', ')})` : 'none',
  );
  // Where an order's CPU goes, its background work (relays, consumers, jobs) included. The
  // customers' side (this process, sending the orders) is shown apart: it is not the store's.
  const placed = load.latencies.length;
  const roles = storeRoles(cpu);
  const total = secondsOf(roles);
  line(
    'CPU an order, every process of the store (until idle again)',
    `${((total / placed) * 1000).toFixed(0)} ms  (${Number.isFinite(idleAfter) ? `idle ${idleAfter.toFixed(0)} s after the last arrival` : 'not idle within 2 min'}; target 50 ms)`,
  );
  for (const [role, seconds] of roles) {
    if (seconds / total < 0.005) continue;
    line(
      `  ${role}`,
      `${((seconds / placed) * 1000).toFixed(1)} ms  (${((seconds / total) * 100).toFixed(0)}%)`,
    );
  }
  line(
    `the store at rest (${REST_SECONDS} s before the load)`,
    `${(atRest * 1000).toFixed(0)} ms of CPU a second, ${((atRest / STEADY_RATE) * 1000).toFixed(1)} ms an order at ${STEADY_RATE} /s`,
  );
  const sending = cpu.find(([role]) => role === LOAD_ROLE)?.[1] ?? 0;
  line(
    "the customers' side, not counted (this bench's own process)",
    `${((sending / placed) * 1000).toFixed(1)} ms`,
  );
}

/** Starts bare-proxy.ts in a process of its own in front of `upstream`; answers its URL and how to stop it. */
async function startBareProxy(upstream: string) {
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(require.resolve('tsx')).href, path.join(__dirname, 'bare-proxy.ts'), upstream],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve(Number(message)));
    child.once('exit', (code) => reject(new Error(`the bare proxy ended (${code}) before it listened`)));
    child.once('error', reject);
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/**
 * `url` read for `seconds` by autocannon, OVERHEAD_CONNECTIONS requests at a time: about half
 * the CPU a request of the bench's own client (0.05–0.08 against 0.08–0.16 ms), CPU taken, on
 * two shared cores, from the very processes measured.
 */
function cannonLoad(url: string, seconds: number) {
  const latencies: number[] = [];
  return new Promise<{ requests: number; seconds: number; latencies: number[] }>((resolve, reject) => {
    const instance = autocannon(
      { url, connections: OVERHEAD_CONNECTIONS, duration: seconds, headers: ACCEPT_ENCODINGS },
      (err: unknown, result: autocannon.Result) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        if (result.non2xx || result.errors) {
          return reject(new Error(`${url}: ${result.non2xx} answers not 2xx, ${result.errors} errors`));
        }
        resolve({ requests: latencies.length, seconds: result.duration, latencies });
      },
    );
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
}

/**
 * What the gateway costs a request the service answers from memory, next to the service called
 * directly and to a bare Node proxy in the gateway's place (bare-proxy.ts: the floor of any
 * proxy written on Node's HTTP server and client). Each side is warmed first: after 300
 * requests a side, a fifth of the gateway's CPU in the measured requests was still V8
 * compiling optimized code (perf, in this section after the steady orders), a cost paid once
 * in a process's life. Then the sides are taken in turn, OVERHEAD_ROUNDS times each, so
 * whatever else the shared machine does in the meantime falls on all alike.
 */
async function gatewayOverheadFigures(store: LoadStore) {
  const payments = `http://127.0.0.1:${store.cluster.find('payments').port}`;
  const bare = await startBareProxy(payments);
  const side = (url: string) => ({
    url,
    requests: 0,
    seconds: 0,
    latencies: [] as number[],
    cpu: new Map<string, number>(),
  });
  const direct = side(`${payments}${OVERHEAD_PATH}`);
  const proxied = side(`${store.cluster.gatewayUrl}${OVERHEAD_PATH}`);
  const floor = side(`${bare.url}${OVERHEAD_PATH}`);
  const sides = [direct, proxied, floor];
  try {
    for (const { url } of sides) await cannonLoad(url, OVERHEAD_WARM_UP_SECONDS);
    for (let round = 0; round < OVERHEAD_ROUNDS; round++) {
      for (const taken of sides) {
        const before = cpuByRole();
        const load = await cannonLoad(taken.url, OVERHEAD_ROUND_SECONDS);
        const after = cpuByRole();
        taken.requests += load.requests;
        taken.seconds += load.seconds;
        taken.latencies.push(...load.latencies);
        for (const [role, seconds] of after) {
          taken.cpu.set(role, (taken.cpu.get(role) ?? 0) + seconds - (before.get(role) ?? 0));
        }
      }
    }
  } finally {
    bare.stop();
  }
  const summary = ({ requests, seconds, latencies, cpu }: ReturnType<typeof side>) => {
    latencies.sort((a, b) => a - b);
    return {
      perSecond: requests / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      // CPU a request, in ms: the rates depend on how busy the shared machine is, this much less.
      cpu: (role: string) => ((cpu.get(role) ?? 0) / requests) * 1000,
    };
  };
  const onService = summary(direct);
  const throughGateway = summary(proxied);
  const throughBare = summary(floor);
  heading(
    `Gateway overhead (GET ${OVERHEAD_PATH}, answered by payments from memory; autocannon, ${OVERHEAD_CONNECTIONS} at a time; after ${OVERHEAD_WARM_UP_SECONDS} s a side, ${OVERHEAD_ROUNDS} rounds of ${OVERHEAD_ROUND_SECONDS} s a side in turn)`,
  );
  const figures = (load: typeof onService) =>
    `${load.perSecond.toFixed(0)} /s, p50 ${load.p50.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms  (${((load.perSecond / onService.perSecond) * 100).toFixed(1)}% of the direct rate)`;
  line('on the service directly', figures(onService));
  line('through the gateway', figures(throughGateway));
  line('through a bare Node proxy instead (http.request and pipe, nothing checked)', figures(throughBare));
  line(
    'ratio',
    `the gateway reaches ${((throughGateway.perSecond / onService.perSecond) * 100).toFixed(1)}% of the direct rate, ${((throughGateway.perSecond / throughBare.perSecond) * 100).toFixed(1)}% of the bare proxy's`,
  );
  line(
    'CPU a request',
    `payments ${onService.cpu('payments').toFixed(2)} ms directly; through the gateway, gateway ${throughGateway.cpu('gateway').toFixed(2)} ms and payments ${throughGateway.cpu('payments').toFixed(2)} ms; the bare proxy ${throughBare.cpu(BARE_PROXY_ROLE).toFixed(2)} ms`,
  );
  line(
    "the load's client (autocannon, this bench's process)",
    `${sides.map((s) => summary(s).cpu(LOAD_ROLE).toFixed(2)).join(' / ')} ms a request (direct / gateway / bare proxy)`,
  );
}

/** The resident memory of each of the store's processes, once the load above has run through them. */
function memoryFigures({ cluster }: LoadStore) {
  heading(
    `Memory (resident, of the gateway and each service process after the two sections above; target ${MEMORY_TARGET_MB / 1024} GB in all)`,
  );
  const mb = (kb: number) => kb / 1024;
  const gateway = cluster.find('gateway');
  let total = 0;
  for (const member of [gateway, ...cluster.members.filter((m) => m !== gateway)]) {
    const several = cluster.members.filter((m) => m.app === member.app).length > 1;
    const name = several ? `${member.app} ${member.index + 1}` : member.app;
    const kb = cluster.residentKb(member);
    if (kb === undefined) {
      line(name, 'not running');
      continue;
    }
    total += kb;
    line(name, `${mb(kb).toFixed(0)} MB`);
  }
  line(
    'total',
    `${mb(total).toFixed(0)} MB  (${((mb(total) / MEMORY_TARGET_MB) * 100).toFixed(0)}% of ${MEMORY_TARGET_MB / 1024} GB)`,
  );
}

const SIGN_INS = knob('BENCH_SIGN_INS', 64);
const SIGN_IN_CONCURRENCY = 8;
const PROBE_EVERY_MS = 50;

/**
 * Customers signing in through the gateway (bcrypt at the service's cost, 12) while auth's
 * /healthz is read every 50 ms: the sign-ins' rate, and how long auth's other answers wait
 * meanwhile, against the same reads with auth idle (what its event loop is held for).
 */
async function signInFigures(store: LoadStore) {
  const run = randomUUID().slice(0, 8);
  const emails: string[] = [];
  for (let i = 0; i < SIGN_IN_CONCURRENCY; i++) emails.push(await store.api.signUp(`signin${run}${i}`));
  const health = `http://127.0.0.1:${store.cluster.find('auth').port}/healthz`;
  const probe = (whileRunning: () => boolean) =>
    (async () => {
      const waits: number[] = [];
      while (whileRunning()) {
        const started = performance.now();
        await (await fetch(health)).arrayBuffer();
        waits.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
      }
      return waits.sort((a, b) => a - b);
    })();
  const idleUntil = Date.now() + 3_000;
  const idle = await probe(() => Date.now() < idleUntil);

  let signingIn = true;
  const meanwhile = probe(() => signingIn);
  const latencies: number[] = [];
  const cpuBefore = cpuByRole();
  const perSecond = await rate(SIGN_INS, SIGN_IN_CONCURRENCY, async (i) => {
    const started = performance.now();
    await store.api.signIn(emails[i % emails.length]!);
    latencies.push(performance.now() - started);
  });
  const cpu = cpuSpent(cpuBefore, cpuByRole());
  signingIn = false;
  const busy = await meanwhile;
  latencies.sort((a, b) => a - b);

  heading(
    `Sign-ins (${SIGN_INS} through the gateway, ${SIGN_IN_CONCURRENCY} at a time, bcrypt cost 12; auth's /healthz read every ${PROBE_EVERY_MS} ms meanwhile)`,
  );
  line(
    'sign-ins',
    `${perSecond.toFixed(1)} /s, p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms`,
  );
  const authCpu = cpu.find(([role]) => role === 'auth')?.[1] ?? 0;
  line('CPU a sign-in, auth', `${((authCpu / SIGN_INS) * 1000).toFixed(0)} ms`);
  const waits = (sorted: number[]) =>
    `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, longest ${sorted.at(-1)?.toFixed(0)} ms (${sorted.length} reads)`;
  line("auth's /healthz, auth idle", waits(idle));
  line("auth's /healthz, while the sign-ins run", waits(busy));
}

const LIVE_STREAMS = knob('BENCH_LIVE_STREAMS', 1000);

/** Opens a page's live stream as an admin's tab does; answers once it is open, with the next 'waiting-payments'. */
function liveStream(url: string, token: string) {
  return new Promise<{ heard: Promise<number>; close: () => void }>((resolve, reject) => {
    const req = http.get(
      `${url}/api/events`,
      { headers: { Cookie: `token=${token}` }, agent: false },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`a live stream answered ${res.statusCode}`));
          res.resume();
          return;
        }
        const heard = new Promise<number>((done) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (chunk.includes('event: waiting-payments')) done(performance.now());
          });
        });
        resolve({ heard, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
  });
}

/** Many pages open on one gateway instance: what their streams cost it, and how fast one event reaches them all. */
async function liveStreamFigures({ cluster }: LoadStore) {
  const gateway = cluster.find('gateway');
  const secret = loadGatewayConfig({ NODE_ENV: 'test' }).JWT_SECRET;
  const before = cluster.residentKb(gateway) ?? NaN;
  const streams = await inBatches(LIVE_STREAMS, 100, () =>
    liveStream(cluster.gatewayUrl, user('admin', secret).token),
  );
  try {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const open = cluster.residentKb(gateway) ?? NaN;
    const sent = performance.now();
    await publishEvents('payment.submitted', {
      key: 'bench',
      data: {
        paymentId: new Types.ObjectId().toString(),
        userId: new Types.ObjectId().toString(),
        method: 'Binance',
        amount: toMicros(10),
        createdAt: new Date().toISOString(),
      },
    });
    const arrivals = (await Promise.all(streams.map((s) => s.heard)))
      .map((at) => at - sent)
      .sort((a, b) => a - b);
    heading(
      `Live streams (${LIVE_STREAMS} admins' pages open on one fresh gateway instance; one new waiting top-up)`,
    );
    line(
      'gateway memory before / with the streams open',
      `${(before / 1024).toFixed(0)} MB / ${(open / 1024).toFixed(0)} MB`,
    );
    line('memory per open stream', `${((open - before) / LIVE_STREAMS).toFixed(1)} kB`);
    line(
      'event published -> heard by every page',
      `first ${arrivals[0]!.toFixed(0)} ms, p50 ${percentile(arrivals, 50).toFixed(0)} ms, last ${arrivals.at(-1)!.toFixed(0)} ms`,
    );
  } finally {
    for (const s of streams) s.close();
  }
}

/** Runs `count` tasks, `size` at a time; answers their results in order. */
async function inBatches<T>(count: number, size: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < count; i += size) {
    results.push(
      ...(await Promise.all(Array.from({ length: Math.min(size, count - i) }, (_, j) => task(i + j)))),
    );
  }
  return results;
}

/** One store of one instance each, measured under steady orders, for the gateway's cost, then for memory. */
export async function steadyStoreFigures() {
  process.stderr.write('  starting the store with one instance of each service…\n');
  const store = await startLoadStore(
    { auth: 1, wallet: 1, catalog: 1, orders: 1, payments: 1 },
    STORE_PORTS,
    SYNC_AT_START_ONLY,
  );
  try {
    // First, while the gateway has served little else: its memory then shows what the streams cost.
    await liveStreamFigures(store);
    await steadyOrderFigures(store);
    await gatewayOverheadFigures(store);
    memoryFigures(store);
    await signInFigures(store);
  } finally {
    await store.stop();
  }
}

/**
 * The sections to run, by name (BENCH_ONLY=orders,steady, say, while trying a change); all of
 * them by default. BENCHMARKS.md is written only by a whole run.
 */
const SECTIONS = [
  'orders',
  'catalog',
  'breakdown',
  'cluster',
  'steady',
  'grown',
  'storefront',
  'phone',
] as const;
const ONLY = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
for (const name of ONLY) {
  if (!(SECTIONS as readonly string[]).includes(name))
    throw new Error(`BENCH_ONLY names ${name}; the sections are ${SECTIONS.join(', ')}`);
}
const runs = (name: (typeof SECTIONS)[number]) => !ONLY.length || ONLY.includes(name);

async function main() {
  const started = new Date();
  console.log(
    `Raseed bench (${started.toISOString()}; local store, ${CONCURRENCY} requests at a time${ONLY.length ? `; only ${ONLY.join(', ')}` : ''})`,
  );
  try {
    if (runs('orders')) await moneyFigures();
    if (runs('catalog')) {
      try {
        await catalogFigures();
      } finally {
        await deleteTopics(TEST_TOPIC_PREFIX);
      }
    }
    if (runs('breakdown')) await breakdownFigures();
    if (runs('cluster')) await clusterFigures();
    if (runs('steady')) await steadyStoreFigures();
    if (runs('grown')) await grownStoreFigures({ heading, line, percentile }, GROWN, STORE_PORTS);
    if (runs('storefront')) storefrontFigures();
    if (runs('phone')) await phoneFigures({ heading, line }, STORE_PORTS);
    if (!ONLY.length) writeBenchmarks(started);
  } finally {
    await closeClient();
    // The services' buckets (each started with a bucket of its own), as a test run's teardown does.
    await deleteTestBuckets(TEST_RUN).catch((err: unknown) => {
      console.warn(`could not delete the bench's buckets: ${String(err)}`);
    });
  }
}

/** Payments confirmed, wallet debits and orders, on services started in this process. */
async function moneyFigures() {
  const walletConfig = loadWalletConfig(testEnv('wallet'));
  const wallet = await startWallet(walletConfig);
  const paymentsConfig = loadPaymentsConfig(testEnv('payments', { WALLET_URL: wallet.url }));
  const payments = await startPayments(paymentsConfig);
  const scratch = await openDatabase(`raseed_bench_${Date.now()}`);
  const http = supertest(payments.url);
  const walletHttp = supertest(wallet.url);
  const secret = walletConfig.JWT_SECRET;

  try {
    // --- payment confirmed -> balance visible
    const admin = user('admin', secret);
    const customers = Array.from({ length: 200 }, () => user('user', secret));
    await publishEvents(
      'user.registered',
      ...customers.map((c) => ({
        key: c.id,
        data: {
          userId: c.id,
          username: c.username,
          email: `${c.username}@example.com`,
          phone: '1',
          role: 'user' as const,
          createdAt: new Date().toISOString(),
        },
      })),
    );
    const ids: string[] = [];
    for (const c of customers) {
      const res = await http
        .post('/api/payments')
        .set(c.auth)
        .field('product_name', 'Binance')
        .field('amount', '10')
        .attach('image', RECEIPT);
      ids.push(res.body.payment.id as string);
    }
    process.stderr.write('  confirming 200 top-ups…\n');
    const latencies: number[] = [];
    for (const [i, c] of customers.entries()) {
      const started = performance.now();
      await http.put(`/api/payments/${ids[i]}/update-status`).set(admin.auth).send({ action: 'confirmed' });
      for (;;) {
        const res = await walletHttp.get('/api/balance').set(c.auth);
        if (res.body.balance === 10) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    heading('Payment confirmed -> balance visible (200 confirmations, one at a time)');
    line('p50', `${percentile(latencies, 50).toFixed(0)} ms`);
    line('p99', `${percentile(latencies, 99).toFixed(0)} ms`);

    // --- wallet debits per second
    const internal = (path: string, body: object) =>
      sendJson('POST', `${wallet.url}${path}`, body, { 'x-service-token': walletConfig.SERVICE_TOKEN }).then(
        (res) => {
          if (res.status !== 201 && res.status !== 200)
            throw new Error(`a debit answered ${res.status}: ${JSON.stringify(res.body)}`);
        },
      );
    const debit = (account: string) =>
      internal(`/internal/orders/${new Types.ObjectId()}/debit`, {
        userId: account,
        amount: toMicros(0.01),
        productName: 'bench',
      });
    const raw = scratch.collection('inserts');
    const rawInsert = (i: number) =>
      raw.insertOne({ account: `a${i % 100}`, seq: i, amount: 1, at: new Date() });
    // Timed once the collection exists: the store creating it on the first inserts is no insert rate.
    await rate(200, CONCURRENCY, rawInsert);
    const rawRate = await rate(2000, CONCURRENCY, rawInsert);
    const one = customers[0]!.id;
    const oneRate = await rate(500, CONCURRENCY, () => debit(one));
    const hundred = customers.slice(0, 100).map((c) => c.id);
    const hundredRate = await rate(1000, CONCURRENCY, (i) => debit(hundred[i % 100]!));
    heading('Wallet debits per second (each: lock, last entry, checked insert, outbox)');
    line('raw inserts into the same store (2000)', `${rawRate.toFixed(0)} /s`);
    line(
      'debits on one account (500)',
      `${oneRate.toFixed(0)} /s  (${((oneRate / rawRate) * 100).toFixed(1)}% of raw inserts)`,
    );
    line(
      'debits across 100 accounts (1000)',
      `${hundredRate.toFixed(0)} /s  (${((hundredRate / rawRate) * 100).toFixed(1)}% of raw inserts)`,
    );
    await orderFigures({ url: wallet.url, config: walletConfig }, payments.url, customers, scratch);
  } finally {
    await payments.stop();
    await wallet.stop();
    await scratch.dropDatabase();
    await scratch.close();
    await dropDatabase(paymentsConfig.MONGO_DB);
    await dropDatabase(walletConfig.MONGO_DB);
  }
}

// Run as npm run bench; imported, it only lends its figures (e.g. storefrontFigures).
if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
