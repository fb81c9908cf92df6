import { hourKey } from '@raseed/kit';
import { openDatabase } from '@raseed/kit/testing';
import { Types, type Connection } from 'mongoose';
import { userModel } from '../../services/auth/src/data/users';
import { orderLoad, startLoadStore, SYNC_AT_START_ONLY, type Shopper, type StoreApi } from '../cluster/load';
import { sql } from '../postgres';
import { machineCpu, untilIdle } from './cpu';

/**
 * The store as it grows (ARCHITECTURE rule 6: a year of orders stays fast). Orders are placed
 * for BURST_SECONDS on the empty store, then the store is seeded with a year of history written
 * straight into the services' databases (orders, ledger entries and payments of customers of its
 * own, their accounts, and auth's record of their sales), and the same burst runs again; then
 * every admin list and figure and the customers' lists are read through the gateway.
 */
export interface Sizes {
  orders: number;
  entries: number;
  payments: number;
}

export interface Report {
  heading(title: string): void;
  line(label: string, value: string): void;
  percentile(sorted: number[], p: number): number;
}

const BURST_SECONDS = 30;
const SHOPPERS = 20;
/** The seeded history's customers: each has orders, entries and payments spread over a year. */
const SEEDED_CUSTOMERS = 5000;
const YEAR_MS = 365 * 24 * 3600_000;
const BATCH = 1000;
/** A list is read up to this many times, and for at most LIST_BUDGET_MS. */
const LIST_READS = 60;
const LIST_BUDGET_MS = 30_000;
/** A burst of orders: its rate, and the CPU the whole machine spent on it until idle again. */
async function burst(api: StoreApi, shoppers: Shopper[], productId: string) {
  const before = machineCpu();
  const load = await orderLoad(api, shoppers, productId, BURST_SECONDS);
  const idleAfter = await untilIdle();
  const cpu = machineCpu().busy - before.busy;
  return { ...load, idleAfter, cpuPerOrder: cpu / load.placed.length };
}

/** Writes `count` documents made by `make`, BATCH at a time. */
async function seed(conn: Connection, collection: string, count: number, make: (i: number) => object) {
  for (let i = 0; i < count; i += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, count - i) }, (_, j) => make(i + j));
    await conn.collection(collection).insertMany(docs, { ordered: false });
    if ((i / BATCH) % 100 === 99) process.stderr.write(`    ${collection}: ${i + BATCH} of ${count}\n`);
  }
}

/**
 * On the local store, has PostgreSQL vacuum the seeded databases' tables, as its autovacuum does
 * in the course of a year (infra.sh runs it after each 1% of new rows): that marks their pages
 * all-visible, so a count is read from an index alone. History written in minutes and read at
 * once has not been through it. Answers the seconds it took, or null on another store.
 */
function vacuumSeeded(databases: string[]): number | null {
  try {
    sql('SELECT 1');
  } catch {
    return null;
  }
  const started = Date.now();
  const names = databases.map((d) => `'${d.replace(/'/g, "''")}'`).join(', ');
  const tables = sql(
    `SELECT format('%I.%I', schemaname, relname) FROM pg_stat_user_tables WHERE schemaname IN (${names})`,
  );
  if (tables.length) sql(`VACUUM (ANALYZE) ${tables.join(', ')}`);
  return (Date.now() - started) / 1000;
}

/** A year of history for SEEDED_CUSTOMERS customers; answers one of them. */
async function seedHistory(env: Record<string, NodeJS.ProcessEnv>, sizes: Sizes): Promise<string> {
  const customers = Array.from({ length: SEEDED_CUSTOMERS }, () => new Types.ObjectId().toString());
  const now = Date.now();
  // The i-th of n documents is spread evenly over the past year, oldest first.
  const at = (i: number, n: number) => new Date(now - YEAR_MS + (i / n) * YEAR_MS);
  const [orders, wallet, payments, auth] = await Promise.all(
    [env.orders, env.wallet, env.payments, env.auth].map((e) => openDatabase(e!.MONGO_DB!)),
  );
  try {
    // The customers' accounts, oldest first, as the users list reads them.
    const User = userModel(auth!);
    await seed(auth!, 'users', SEEDED_CUSTOMERS, (i) =>
      new User({
        _id: customers[i],
        username: `seeded${i}`,
        usernameKey: `seeded${i}`,
        email: `seeded${i}@raseed.test`,
        createdAt: at(i, SEEDED_CUSTOMERS),
      }).toObject(),
    );
    await seed(orders!, 'orders', sizes.orders, (i) => {
      const createdAt = at(i, sizes.orders);
      const status = i % 100 === 0 ? 'waiting' : i % 20 === 0 ? 'rejected' : 'confirmed';
      return {
        _id: new Types.ObjectId(),
        userId: customers[i % SEEDED_CUSTOMERS],
        username: `seeded${i % SEEDED_CUSTOMERS}`,
        productId: 'seeded-product',
        productName: 'Steam 10$',
        kind: 'created',
        supplierId: null,
        quantity: 1,
        unitPrice: 10_000_000,
        total: 10_000_000,
        params: 'Account e-mail:a@b.c',
        fields: { 'Account e-mail': 'a@b.c' },
        status,
        paid: true,
        failed: null,
        fingerprint: null,
        replay: status === 'confirmed' ? 'CODE-1234' : null,
        externalId: null,
        reason: status === 'rejected' ? 'Out of stock' : null,
        createdAt,
        hour: hourKey(createdAt),
        decidedAt: status === 'waiting' ? null : createdAt,
      };
    });
    // Each customer's chain of entries: a top-up, then orders, its balance kept.
    const perCustomer = Math.ceil(sizes.entries / SEEDED_CUSTOMERS);
    await seed(wallet!, 'entries', sizes.entries, (i) => {
      const account = customers[i % SEEDED_CUSTOMERS]!;
      const seq = Math.floor(i / SEEDED_CUSTOMERS) + 1;
      const topUp = seq === 1;
      return {
        account,
        seq,
        key: topUp ? `payment:seeded-${i}` : `order:seeded-${i}`,
        kind: 'movement',
        type: topUp ? 'IN' : 'OUT',
        amount: topUp ? perCustomer * 10_000_000 : 10_000_000,
        balance: (perCustomer - seq + 1) * 10_000_000,
        debtChange: 0,
        debt: 0,
        productName: topUp ? 'Binance' : 'Steam 10$',
        status: 'confirmed',
        createdAt: at(i, sizes.entries),
      };
    });
    await seed(payments!, 'payments', sizes.payments, (i) => {
      const createdAt = at(i, sizes.payments);
      const status = i % 50 === 0 ? 'rejected' : 'confirmed';
      return {
        _id: new Types.ObjectId(),
        userId: customers[i % SEEDED_CUSTOMERS],
        username: `seeded${i % SEEDED_CUSTOMERS}`,
        productName: 'Binance',
        amount: 50_000_000,
        amountToSend: null,
        type: 'IN',
        status,
        asDebt: false,
        receipt: null,
        createdBy: 'seeded',
        createdAt,
        hour: hourKey(createdAt),
        decidedAt: createdAt,
        ...(status === 'confirmed' && { saleHour: hourKey(createdAt) }),
      };
    });
    // Auth's read model of the confirmed ones, from which the users list counts each customer's sales.
    // The j-th of them is payment j + floor(j / 49) + 1: every 50th payment, from the first, was rejected.
    await seed(auth!, 'sales', sizes.payments - Math.ceil(sizes.payments / 50), (j) => {
      const i = j + Math.floor(j / 49) + 1;
      return {
        _id: `seeded-${i}`,
        userId: customers[i % SEEDED_CUSTOMERS],
        amount: 50_000_000,
        at: at(i, sizes.payments),
      };
    });
  } finally {
    await Promise.all([orders, wallet, payments, auth].map((c) => c!.close()));
  }
  return customers[0]!;
}

/**
 * Waits until a service has summed the seeded year (its first pass over a store's history, in
 * the background after its start: the orders' tally, the payments' sales summary), seen as the
 * first record in `collection`: answers the seconds it took, or null after 5 minutes.
 */
async function untilSummed(env: NodeJS.ProcessEnv, collection: string): Promise<number | null> {
  const db = await openDatabase(env.MONGO_DB!);
  const started = Date.now();
  try {
    while (Date.now() - started < 300_000) {
      if (await db.collection(collection).countDocuments()) return (Date.now() - started) / 1000;
      await new Promise((r) => setTimeout(r, 500));
    }
    return null;
  } finally {
    await db.close();
  }
}

/** Reads a list through the gateway until LIST_READS answers or LIST_BUDGET_MS: its latencies. */
async function readList(api: StoreApi, token: string, path: string, body?: object): Promise<number[]> {
  const latencies: number[] = [];
  const started = Date.now();
  while (latencies.length < LIST_READS && Date.now() - started < LIST_BUDGET_MS) {
    const at = performance.now();
    await api.call(`read ${path}`, path, { token, body, method: body ? 'POST' : 'GET' });
    latencies.push(performance.now() - at);
  }
  return latencies.sort((a, b) => a - b);
}

export async function grownStoreFigures(
  report: Report,
  sizes: Sizes,
  ports: Parameters<typeof startLoadStore>[1],
) {
  const { heading, line, percentile } = report;
  process.stderr.write('  starting the store with one instance of each service…\n');
  const store = await startLoadStore(
    { auth: 1, wallet: 1, catalog: 1, orders: 1, payments: 1 },
    ports,
    SYNC_AT_START_ONLY,
  );
  try {
    const { api, adminToken } = store;
    const productId = await api.createdProduct(adminToken, 0.01);
    const shoppers = await api.shoppers(SHOPPERS, 100, adminToken);
    await orderLoad(api, shoppers, productId, 5);
    process.stderr.write(`  a ${BURST_SECONDS} s burst of orders on the empty store…\n`);
    const empty = await burst(api, shoppers, productId);

    process.stderr.write(
      `  seeding ${sizes.orders} orders, ${sizes.entries} ledger entries, ${sizes.payments} payments and ${SEEDED_CUSTOMERS} customers…\n`,
    );
    // The orders service tallies the hours that are over as they pass, and payments tallies its
    // payments and sums the sales of those hours; a year written behind their backs is counted
    // once they start again, as on a store restored from a backup.
    const summing = [store.cluster.find('orders'), store.cluster.find('payments')];
    for (const service of summing) await store.cluster.halt(service);
    const seedingStarted = Date.now();
    const customer = await seedHistory(store.env, sizes);
    const seedingSeconds = (Date.now() - seedingStarted) / 1000;
    const vacuumSeconds = vacuumSeeded(
      [store.env.orders, store.env.wallet, store.env.payments, store.env.auth].map((e) => e!.MONGO_DB!),
    );
    for (const service of summing) await store.cluster.restart(service);
    const [tallySeconds, summarySeconds, paymentTallySeconds] = await Promise.all([
      untilSummed(store.env.orders!, 'order_tallies'),
      untilSummed(store.env.payments!, 'sale_summaries'),
      untilSummed(store.env.payments!, 'payment_tallies'),
    ]);
    await untilIdle();
    process.stderr.write(`  the same burst on the grown store…\n`);
    const grown = await burst(api, shoppers, productId);

    heading(
      `The store grown (${sizes.orders} orders, ${sizes.entries} ledger entries, ${sizes.payments} payments and ${SEEDED_CUSTOMERS} customers seeded over a year; ${SHOPPERS} customers ordering for ${BURST_SECONDS} s; CPU counted for the whole machine, the load's own client included)`,
    );
    line('seeding', `${seedingSeconds.toFixed(0)} s`);
    if (vacuumSeconds !== null) {
      line('vacuum of the seeded tables (a year of autovacuum)', `${vacuumSeconds.toFixed(0)} s`);
    }
    const summed = (seconds: number | null) =>
      seconds === null ? 'not done within 5 minutes' : `${seconds.toFixed(0)} s`;
    line("the orders service's first tally of the seeded year", summed(tallySeconds));
    line("the payments service's first sum of the seeded sales", summed(summarySeconds));
    line("the payments service's first tally of the seeded payments", summed(paymentTallySeconds));
    const orderFigures = (b: typeof empty) =>
      `${b.perSecond.toFixed(1)} /s, p99 ${percentile(b.latencies, 99).toFixed(0)} ms; ${b.cpuPerOrder.toFixed(3)} CPU-s an order; ${Number.isFinite(b.idleAfter) ? `idle ${b.idleAfter.toFixed(0)} s after` : 'not idle within 2 min'}`;
    line('orders on the empty store', orderFigures(empty));
    line('orders on the grown store', orderFigures(grown));
    line('ratio', `${((grown.perSecond / empty.perSecond) * 100).toFixed(0)}% of the empty store's rate`);

    const lists: [string, string, object?][] = [
      ['admin: Orders History', '/api/orders?page=1&limit=10'],
      ['admin: Active Orders', '/api/orders?status=waiting&page=1&limit=10'],
      ['admin: order figures', '/api/orders/stats'],
      [
        "a customer's orders (My Orders, read by an admin)",
        '/api/orders/myorders',
        { userId: customer, page: 1 },
      ],
      ['admin: stuck supplier orders', '/api/orders/stuck?page=1&limit=10'],
      ['admin: disputed supplier orders', '/api/orders/disputed?page=1&limit=10'],
      ['admin: Payments History', '/api/payments?page=1&limit=10'],
      ['admin: Active Payments', '/api/waiting-payments?page=1&limit=10'],
      ['admin: payment figures', '/api/payments/stats'],
      ['admin: sales per user', '/api/userpayment'],
      [
        "a customer's payments (My Payments, read by an admin)",
        '/api/payments/mypayments',
        { userId: customer, page: 1 },
      ],
      ["a customer's balance (read by an admin)", `/api/balance?user_id=${customer}`],
      ['admin: users', '/api/users?page=1&limit=10'],
      ['admin: users, page 300 (seeded customers)', '/api/users?page=300&limit=10'],
      ['admin: user search', '/api/users/search?query=seeded4999'],
    ];
    for (const [label, path, body] of lists) {
      const latencies = await readList(api, adminToken, path, body);
      line(
        label,
        `p95 ${percentile(latencies, 95).toFixed(0)} ms (${latencies.length} reads)${percentile(latencies, 95) <= 100 ? '' : '  over 100 ms'}`,
      );
    }
  } finally {
    await store.stop();
  }
}
