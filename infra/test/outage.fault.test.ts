import { toMicros } from '@raseed/kit';
import { eventually, infra, testEnv } from '@raseed/kit/testing';
import { randomUUID } from 'node:crypto';
import { loadPaymentsConfig } from '../../services/payments/src/config';
import { startPayments } from '../../services/payments/src/service';
import { freshReceipt } from '../../services/payments/test/support';
import { startTestOrders, type TestOrders, type TestUser } from '../../services/orders/test/support';
import { runReconcile } from '../../services/wallet/src/reconcile';
import { bearer, newUsers } from '../../services/wallet/test/support';
import supertest from 'supertest';

/**
 * Issue 15: a piece of our infrastructure going away under load. Customers keep ordering and
 * topping up (and an admin confirming) while Redis, the document store or the object store is
 * stopped, or Kafka is SIGKILLed, then started again. Every request is answered (never left
 * hanging), with 503 while what it needs is away and never with another 5xx; the clients'
 * retries with their Idempotency-Keys all succeed once it is back, by themselves; and every
 * balance is exact to the micro-dollar, with reconcile clean.
 */

const PRICE = 1.25;
const TOP_UP = 5;
/** A request left waiting this long counts as hanging, whatever the machine's speed. */
const HANG_MS = 45_000;
/** Longer than any wait for a piece that is away (the store's is 5 s), so requests meet the outage. */
const AWAY_MS = 12_000;
/** An answer this slow waited for what was away (a store command waits 5 s for its server). */
const FELT_MS = 5_000;
const TEST_MS = 300_000;

interface Answer {
  op: string;
  status: number;
  ms: number;
  at: number;
  /** The error a refusal gave (which service was away, or busy), or the client's failure. */
  error?: string;
}

let orders: TestOrders;
let payments: Awaited<ReturnType<typeof startPayments>>;
let productId: string;

beforeAll(async () => {
  orders = await startTestOrders();
  payments = await startPayments(
    loadPaymentsConfig(testEnv('payments', { WALLET_URL: orders.wallet.service.url })),
  );
  productId = await orders.createdProduct(String(PRICE));
}, 180_000);

afterAll(async () => {
  // Whatever a failed test left stopped is started again for the next file.
  await infra('up');
  await payments?.stop();
  await orders?.stop();
});

/** Customers ordering and topping up in a loop, each request retried with its key until it is decided. */
class Load {
  readonly answers: Answer[] = [];
  /** Per customer: dollars confirmed into the wallet, and the orders placed (each at PRICE). */
  readonly money = new Map<string, { credited: number; orders: number }>();
  private running = true;
  /** Set when a test has failed: requests are no longer retried, so the next test starts alone. */
  private abandoned = false;
  private loops: Promise<void>[] = [];
  /** Requests sent and not answered yet, with when they were sent. */
  private readonly pending = new Set<{ op: string; at: number }>();

  constructor(
    private readonly customers: TestUser[],
    private readonly admin: TestUser,
  ) {}

  start(): void {
    this.loops = this.customers.map((c, i) => this.loop(c, i));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Stops the loops without waiting for their requests to be decided. */
  abandon(): void {
    this.running = false;
    this.abandoned = true;
  }

  /** Answers to requests sent between `since` and `until`, counted by status. */
  statuses(since = 0, until = Infinity): Record<number, number> {
    const counts: Record<number, number> = {};
    for (const a of this.answers.filter((x) => x.at >= since && x.at < until))
      counts[a.status] = (counts[a.status] ?? 0) + 1;
    return counts;
  }

  /** The same by operation, for the log: 'order 201', 'top-up 503', … */
  byOperation(since = 0): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const a of this.answers.filter((x) => x.at >= since))
      counts[`${a.op} ${a.status}`] = (counts[`${a.op} ${a.status}`] ?? 0) + 1;
    return counts;
  }

  /** Refusals since `since`, by operation, status and error, with how long the slowest took: the log of a failed wait. */
  refusals(since: number): Record<string, string> {
    const seen: Record<string, { n: number; slowest: number }> = {};
    for (const a of this.answers.filter((x) => x.at >= since && x.status >= 300)) {
      const name = `${a.op} ${a.status} ${a.error ?? ''}`.trim();
      const s = (seen[name] ??= { n: 0, slowest: 0 });
      s.n++;
      s.slowest = Math.max(s.slowest, a.ms);
    }
    return Object.fromEntries(Object.entries(seen).map(([k, s]) => [k, `${s.n}, slowest ${s.slowest} ms`]));
  }

  /** The slowest answer, for the log: which request, how it was answered, and when it was sent. */
  slowest(away: number): string {
    const a = this.answers.reduce((most, x) => (x.ms > most.ms ? x : most));
    const sent = ((a.at - away) / 1000).toFixed(1);
    return `${a.ms} ms (${a.op} ${a.status}${a.error ? ` '${a.error}'` : ''}, sent ${sent} s after the stop)`;
  }

  /** The requests sent and still unanswered, with how long each has waited. */
  waiting(): string[] {
    return [...this.pending].map((p) => `${p.op} for ${Date.now() - p.at} ms`);
  }

  /** Whether each kind of operation has been answered 2xx since `since`. */
  succeededSince(since: number): boolean {
    const ok = (op: string) => this.answers.some((a) => a.op === op && a.at >= since && a.status < 300);
    return ok('order') && ok('top-up') && ok('confirm');
  }

  private async loop(customer: TestUser, i: number): Promise<void> {
    const money = { credited: 0, orders: 0 };
    this.money.set(customer.id, money);
    for (let n = i; this.running; n++) {
      if (n % 3 === 0) {
        const paymentId = await this.topUp(customer);
        if (paymentId && (await this.confirm(paymentId))) money.credited += TOP_UP;
      } else if (money.credited - money.orders * PRICE >= PRICE) {
        // Refused (a credit still on its way): the customer waits a little before trying again.
        if (await this.order(customer)) money.orders++;
        else await sleep(250);
      } else {
        await sleep(100);
      }
    }
  }

  /** Sends one request until it is decided: again (with the same key) on 503 or a cut connection. */
  private async decided(op: string, send: () => supertest.Test): Promise<supertest.Response | null> {
    for (;;) {
      const started = Date.now();
      let failure: string | undefined;
      const sent = { op, at: started };
      this.pending.add(sent);
      const res = await send().then(
        (r) => r,
        (err: Error) => ((failure = err.message), null),
      );
      this.pending.delete(sent);
      const status = res?.status ?? 0;
      const error = failure ?? (status >= 300 ? String(res?.body?.error ?? res?.text ?? '') : undefined);
      this.answers.push({ op, status, ms: Date.now() - started, at: started, error });
      if ((res && status !== 503) || this.abandoned) return res;
      await sleep(250);
    }
  }

  private async order(customer: TestUser): Promise<boolean> {
    const key = randomUUID();
    const res = await this.decided('order', () =>
      orders.order(customer, { product_id: productId, quantity: 1, params: 'Account e-mail:a@b.c' }, key),
    );
    return res?.status === 201;
  }

  private async topUp(customer: TestUser): Promise<string | null> {
    const key = randomUUID();
    const receipt = freshReceipt();
    const res = await this.decided('top-up', () =>
      supertest(payments.url)
        .post('/api/payments')
        .set(bearer(customer))
        .set('Idempotency-Key', key)
        .field('product_name', 'Binance')
        .field('amount', String(TOP_UP))
        .attach('image', receipt, 'receipt.png'),
    );
    return res?.status === 201 ? (res.body.payment.id as string) : null;
  }

  private async confirm(paymentId: string): Promise<boolean> {
    const res = await this.decided('confirm', () =>
      supertest(payments.url)
        .put(`/api/payments/${paymentId}/update-status`)
        .set(bearer(this.admin))
        .send({ action: 'confirmed' }),
    );
    // A retry of a confirm that went through before its answer was lost finds it decided.
    return res?.status === 200 || res?.status === 409;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What each service's /readyz finds up or down (or how asking it failed). */
async function readiness(): Promise<Record<string, unknown>> {
  const services = {
    orders: orders.url(),
    wallet: orders.wallet.service.url,
    catalog: orders.catalog.service.url,
    payments: payments.url,
  };
  const answers = await Promise.all(
    Object.entries(services).map(async ([name, url]) => {
      const answer = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
        async (res) => ((await res.json()) as { checks?: unknown }).checks,
        (err: Error) => err.message,
      );
      return [name, answer] as const;
    }),
  );
  return Object.fromEntries(answers);
}

/** The readiness check (GET /readyz) that names each piece. */
const CHECK_OF: Record<string, string> = { redis: 'redis', mongo: 'mongo', minio: 'objects' };

/** Waits until every service that checks `check` finds it `state` (and at least one does). */
async function untilEveryFinds(check: string, state: 'up' | 'down', timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      const states = Object.values(await readiness()).map((checks) =>
        typeof checks === 'object' && checks ? (checks as Record<string, string>)[check] : 'unknown',
      );
      const all = states.some((s) => s !== undefined) && states.every((s) => s === undefined || s === state);
      return all ? true : undefined;
    },
    { timeoutMs, what: `every service's /readyz to find ${check} ${state}` },
  );
}

/**
 * Runs the load, takes `component` away for a while, brings it back, and checks what the
 * customers saw and what their wallets hold.
 */
async function outage(component: string, how: 'down' | 'kill', expectRefusals: boolean) {
  const customers = await newUsers(4);
  const load = new Load(customers, orders.admin);
  await eventually(
    async () =>
      (await payments.context.mongo.collection('users').countDocuments({
        _id: { $in: customers.map((c) => c.id) } as never,
      })) === customers.length
        ? true
        : undefined,
    { timeoutMs: 120_000, what: 'payments to learn of the customers' },
  );
  load.start();
  try {
    await sleep(3000);

    const away = Date.now();
    await infra(how, component);
    const stopped = Date.now();
    const check = CHECK_OF[component];
    // Each service's probe asks the piece rather than trusting its connection's state, so it finds it away.
    if (check) await untilEveryFinds(check, 'down', AWAY_MS);
    await sleep(Math.max(0, stopped + AWAY_MS - Date.now()));
    const back = Date.now();
    await infra('up', component);
    // Each kind of request, sent after it is up again, succeeds: however long a request takes here.
    const up = Date.now();
    await eventually(async () => (load.succeededSince(up) ? true : undefined), {
      timeoutMs: 120_000,
      what: `orders, top-ups and confirms to succeed again after ${component} came back`,
    }).catch(async (err: Error) => {
      // What the customers were answered since it came back says which part did not recover,
      // requests still unanswered say what hangs, and each service says what it finds away.
      throw new Error(
        `${err.message}; answers since: ${JSON.stringify(load.byOperation(back))}; ` +
          `refusals: ${JSON.stringify(load.refusals(back))}; waiting: ${JSON.stringify(load.waiting())}; ` +
          `readiness: ${JSON.stringify(await readiness())}`,
      );
    });
    if (check) await untilEveryFinds(check, 'up', 30_000);
    await sleep(2000);
    await load.stop();

    const during = load.statuses(away, back + 1000);
    console.log(
      `[outage] ${component} ${how}: during ${JSON.stringify(during)}, ` +
        `all ${JSON.stringify(load.byOperation())}, slowest ${load.slowest(away)}`,
    );
    // Every request was answered: with its outcome, a 4xx, or 503 while what it needed was away.
    const wrong = load.answers.filter((a) => a.status === 0 || (a.status >= 500 && a.status !== 503));
    expect(wrong).toEqual([]);
    expect(load.answers.filter((a) => a.ms > HANG_MS)).toEqual([]);
    if (expectRefusals) {
      // The outage is felt: a request that needs what is away is refused with 503, or is held
      // until it is back and then succeeds (the calls between services retry through it).
      const felt = load.answers.filter(
        (a) => a.at >= away && a.at < back && (a.status === 503 || a.ms >= FELT_MS),
      );
      expect(felt.length).toBeGreaterThan(0);
    } else expect(Object.keys(during).filter((s) => Number(s) >= 500)).toEqual([]);

    // Each customer holds what was confirmed minus what was ordered, to the micro-dollar.
    for (const customer of customers) {
      const { credited, orders: placed } = load.money.get(customer.id)!;
      const expected = toMicros(credited) - placed * toMicros(PRICE);
      await eventually(
        async () => (toMicros(await orders.wallet.balance(customer)) === expected ? true : undefined),
        { timeoutMs: 120_000, what: `the balance of ${customer.id} to be ${expected / 1e6}` },
      ).catch(async (err: Error) => {
        // What it holds instead, and what payments has still to send, say where the money stopped.
        const unsent = await payments.context.mongo.collection('outbox').countDocuments();
        throw new Error(
          `${err.message}; it holds ${await orders.wallet.balance(customer)}; payments' outbox holds ${unsent}`,
        );
      });
    }
    // One order per key that was answered 201, none for the retries.
    const stored = await orders.storedOrders({ userId: { $in: customers.map((c) => c.id) }, paid: true });
    expect(stored).toHaveLength([...load.money.values()].reduce((sum, m) => sum + m.orders, 0));
    expect(
      await runReconcile({
        ...orders.wallet.config,
        PAYMENTS_URL: [payments.url],
        ORDERS_URL: [orders.url()],
      }),
    ).toBe(0);
  } finally {
    load.abandon();
  }
}

describe('the store while a piece of its infrastructure is away', () => {
  it(
    'Redis stopped under load: 503 while it is away, then everything succeeds, balances exact',
    async () => {
      await outage('redis', 'down', true);
    },
    TEST_MS,
  );

  it(
    'the document store stopped under load: 503 or held while it is away, then everything succeeds, balances exact',
    async () => {
      await outage('mongo', 'down', true);
    },
    TEST_MS,
  );

  it(
    'the object store stopped under load: top-ups answer 503, orders go on, balances exact',
    async () => {
      await outage('minio', 'down', true);
    },
    TEST_MS,
  );

  it(
    'Kafka SIGKILLed under load: requests go on, every confirmed top-up is credited once when it is back',
    async () => {
      await outage('kafka', 'kill', false);
    },
    TEST_MS,
  );
});
