import { eventually, infra, openDatabase } from '@raseed/kit/testing';
import { IMAGE } from '../../services/catalog/test/support';
import { loadWalletConfig } from '../../services/wallet/src/config';
import { IN_FLIGHT_MS } from '../../services/wallet/src/domain/reconcile';
import { runReconcile } from '../../services/wallet/src/reconcile';
import { admins, customer, type OrderableProduct, type World } from './chaos/actors';
import { Client, type RequestRecord } from './chaos/client';
import { driveFaults, heal, type FaultRecord, type FlakyProduct } from './chaos/faults';
import { chaosSeed, Random } from './chaos/random';
import { startStack, type Stack } from './chaos/stack';
import { verifyMoney, type Verdict } from './chaos/verify';

/**
 * The randomized fault run (issue 15): customers and two admins use the store while wallet,
 * orders and payments are killed and paused, Kafka is restarted, the wallet's answers are
 * delayed or cut off, and the supplier times out, answers late or takes its OK back. Then the
 * faults stop, the repairs settle, and every dollar must be accounted for.
 *
 * CHAOS_SEED replays a run's choices (printed first); CHAOS_MINUTES sets how long the store is
 * driven (3 unless told). A seed that once failed is kept below, run for as long as it ran when it failed.
 */
const MINUTES = Number(process.env.CHAOS_MINUTES ?? 3);
const SEED = chaosSeed();
/** CHAOS_KAFKA=0 leaves the broker alone, for a machine where other tests use it meanwhile. */
const RESTART_KAFKA = process.env.CHAOS_KAFKA !== '0';
/**
 * Seeds that once failed, each with the minutes it failed at.
 * 777: two disputes resolved by a refund and one by delivering were reported by reconcile as
 * decisions that disagree with their orders' status (fixed in reconcile: it now reads the resolution).
 * 3971599570: a timed-out supplier order's refund was cut off by a wallet SIGKILL; the supplier then
 * completed it, the dispute was opened on the unrefunded order and delivered, debiting the customer
 * twice (fixed: a dispute opens only once its decision's effects all happened).
 */
const KEPT_SEEDS: [number, number][] = [
  [777, 2],
  [3971599570, 3],
];

/** A request cut by a fault may fail; one started this long after a fault ended may not. */
const FAULT_GRACE_MS = 20_000;
/** How long the store may take to finish what the faults cut off. */
const SETTLE_MS = 180_000;

const say = (line: string) => process.stderr.write(`[chaos] ${line}\n`);
const at = (started: number, time: number) => `${((time - started) / 1000).toFixed(1)} s`;

/** The supplier products ordered in the run, each answering its own way. */
const SCENARIOS = [
  'complete',
  'after-polls:2',
  'reject',
  'late:4',
  // Later than the placement's last try: refunded, then completed (a dispute).
  'late:25',
  'ok-then-reject:1',
  'wait',
  'timeout',
];

async function products(stack: Stack): Promise<{ list: OrderableProduct[]; flaky: FlakyProduct }> {
  const sim = stack.catalog.sim.control;
  const cheap = sim.products.filter((p) => p.available && p.priceMicros <= 5_000_000);
  const list: OrderableProduct[] = [];
  let next = 0;
  for (const scenario of [...SCENARIOS, 'complete']) {
    const product = cheap[next++];
    if (!product) throw new Error('the supplier simulator has too few cheap products');
    try {
      sim.setScenario(product.id, scenario);
    } catch {
      say(`the supplier simulator has no scenario '${scenario}': left out`);
      continue;
    }
    list.push({
      id: `p-${product.id}`,
      label: `supplier ${scenario}`,
      params: product.params,
      quantity: product.qtyValues?.min ?? 1,
    });
  }
  // The last one is the product the fault driver spoils now and then.
  const flakyProduct = cheap[next - 1]!;
  list[list.length - 1]!.label = 'supplier flaky';
  const admin = `Bearer ${stack.admins[0]!.token}`;
  for (const name of ['created a', 'created b']) {
    const res = await stack.catalog
      .http()
      .post('/api/create/product')
      .set('Authorization', admin)
      .field('productName', `Chaos ${name} ${stack.customers[0]!.id.slice(-6)}`)
      .field('price', name === 'created a' ? '2.5' : '7.25')
      .field('params', 'Account e-mail')
      .field('category_name', 'Steam')
      .attach('image', IMAGE);
    if (res.status !== 201) throw new Error(`creating a product answered ${res.status}: ${res.text}`);
    list.push({ id: res.body.product.id as string, label: name, params: ['Account e-mail'], quantity: 1 });
  }
  return { list, flaky: { supplierId: flakyProduct.id, scenario: 'complete' } };
}

/** Requests that failed (5xx or no answer) without any fault near them. */
function unexplainedFailures(requests: RequestRecord[], faults: FaultRecord[]): RequestRecord[] {
  return requests.filter(
    (r) =>
      (r.status === 0 || r.status >= 500) &&
      !faults.some((f) => r.start <= f.end + FAULT_GRACE_MS && r.end >= f.start),
  );
}

async function chaosRun(seed: number, minutes: number): Promise<void> {
  say(
    `seed ${seed}, ${minutes} min (replay: CHAOS_SEED=${seed} CHAOS_MINUTES=${minutes} npm run test:chaos)`,
  );
  const random = new Random(seed);
  const stack = await startStack(random, { customers: 4 });
  const dbs = {
    wallet: await openDatabase(stack.services.wallet.env.MONGO_DB as string),
    orders: await openDatabase(stack.services.orders.env.MONGO_DB as string),
    payments: await openDatabase(stack.services.payments.env.MONGO_DB as string),
  };
  const faults: FaultRecord[] = [];
  try {
    const everyone = [...stack.customers, ...stack.admins];
    await eventually(
      async () =>
        (await dbs.payments
          .collection('users')
          .countDocuments({ _id: { $in: everyone.map((u) => u.id) } as never })) === everyone.length &&
        (
          await dbs.wallet
            .collection('entries')
            .distinct('account', { account: { $in: stack.customers.map((c) => c.id) } })
        ).length === stack.customers.length
          ? true
          : undefined,
      { timeoutMs: 60_000, what: 'payments and the wallet to learn of the users' },
    );
    const { list, flaky } = await products(stack);
    const client = new Client();
    const started = Date.now();
    const world: World = {
      stack,
      client,
      products: list,
      waitingPayments: [],
      createdOrders: [],
      deleted: new Set(),
      started,
      runEnds: started + minutes * 60_000,
      giveUpAt: started + minutes * 60_000 + 120_000,
      outcomes: new Map(),
    };
    // Every customer starts with an admin's credit, so orders have money to spend.
    await Promise.all(
      stack.customers.map((c, i) =>
        client.retried(
          'setup',
          'opening credit',
          `${stack.services.payments.url}/api/payments`,
          {
            token: stack.admins[0]!.token,
            body: { user_id: c.id, type: 'IN', amount: 60 + i * 10 },
            key: `opening-${c.id}`,
          },
          () => false,
        ),
      ),
    );
    say(`store up; driving it for ${minutes} min`);

    const driver = driveFaults(stack, random.fork('faults'), flaky, world.runEnds, faults, {
      kafka: RESTART_KAFKA,
    });
    await Promise.all([
      driver,
      ...stack.customers.map((c, i) => customer(world, random.fork(`customer ${i}`), c, i)),
      admins(world, random.fork('admins')),
    ]);
    const drivenFor = Date.now() - started;
    await heal(stack, flaky);
    say(`faults stopped after ${at(started, Date.now())}; waiting for the store to settle`);

    let verdict: Verdict = { problems: ['not checked'], figures: {} };
    const settleStarted = Date.now();
    while (Date.now() - settleStarted < SETTLE_MS) {
      verdict = await verifyMoney(stack, dbs).catch((err: unknown) => ({
        problems: [`could not read the store: ${String(err)}`],
        figures: {},
      }));
      if (!verdict.problems.length) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    const settledIn = Date.now() - settleStarted;
    // Reconcile counts what moved in its last IN_FLIGHT_MS as on its way: once that has passed, it checks everything.
    const lastRequest = Math.max(...client.requests.map((r) => r.end));
    await new Promise((r) => setTimeout(r, Math.max(0, lastRequest + IN_FLIGHT_MS + 5000 - Date.now())));
    const reconciled = await runReconcile(
      loadWalletConfig({
        ...stack.services.wallet.env,
        PAYMENTS_URL: stack.services.payments.url,
        ORDERS_URL: stack.services.orders.url,
      }),
    );
    const unexplained = unexplainedFailures(client.requests, faults);
    const crashes = Object.values(stack.services).flatMap((service) => service.crashes);

    const outcomes = [...world.outcomes].sort(([a], [b]) => a.localeCompare(b));
    say(
      `seed ${seed}: driven ${at(0, drivenFor)}, settled in ${at(0, settledIn)}, ${client.requests.length} requests`,
    );
    say('operations (answer: count):');
    for (const [name, n] of outcomes) say(`  ${name}: ${n}`);
    say(`faults (${faults.length}):`);
    for (const f of faults) say(`  ${at(started, f.start)} – ${at(started, f.end)}  ${f.what}`);
    say(`proxy: ${JSON.stringify(stack.proxy.figures)}`);
    say(`store: ${JSON.stringify(verdict.figures)}`);
    say(`reconcile exit code ${reconciled}`);
    for (const p of [...crashes, ...verdict.problems]) say(`PROBLEM ${p}`);
    for (const r of unexplained)
      say(
        `UNEXPLAINED ${r.status || 'no answer'} at ${at(started, r.start)}–${at(started, r.end)}: ${r.actor} ${r.op} ${r.method} ${r.url} ${r.error ?? ''}`,
      );

    expect({ seed, problems: [...crashes, ...verdict.problems] }).toEqual({ seed, problems: [] });
    expect({ seed, reconcile: reconciled }).toEqual({ seed, reconcile: 0 });
    expect({ seed, unexplained: unexplained.map((r) => `${r.status} ${r.op} ${r.url}`) }).toEqual({
      seed,
      unexplained: [],
    });
  } finally {
    // Whatever happened, nothing is left paused, killed or down for the next test.
    if (RESTART_KAFKA)
      await infra('up', 'kafka').catch((err: unknown) => say(`could not bring Kafka up: ${String(err)}`));
    await Promise.all(Object.values(dbs).map((db) => db.close()));
    await stack.stop();
  }
}

const budget = (minutes: number) => (minutes + 6) * 60_000;

describe('the store under randomized faults', () => {
  it(`loses no money and counts none twice (seed ${SEED})`, () => chaosRun(SEED, MINUTES), budget(MINUTES));

  // A replay (CHAOS_SEED) runs that seed alone.
  if (KEPT_SEEDS.length && !process.env.CHAOS_SEED) {
    for (const [seed, minutes] of KEPT_SEEDS) {
      it(`a seed that once failed, ${seed}, passes`, () => chaosRun(seed, minutes), budget(minutes));
    }
  }
});
