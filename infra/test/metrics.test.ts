import { eventually } from '@raseed/kit/testing';
import supertest from 'supertest';
import { startTestAuth, type TestAuth } from '../../services/auth/test/support';
import { freshReceipt, startMoneyServices, type MoneyServices } from '../../services/payments/test/support';
import { bearer, newUser } from '../../services/wallet/test/support';

/** What operators read from each service's /metrics, checked against what just happened. */
let money: MoneyServices;
let auth: TestAuth;

beforeAll(async () => {
  [money, auth] = await Promise.all([startMoneyServices(), startTestAuth()]);
});

afterAll(async () => {
  await Promise.all([money?.stop(), auth?.stop()]);
});

/** The value of one series of a /metrics text, found by its name and some of its labels. */
function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const line = text.split('\n').find((l) => {
    if (!l.startsWith(`${name}{`) && !l.startsWith(`${name} `)) return false;
    return Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`));
  });
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

const scrape = async (url: string) => (await supertest(url).get('/metrics').expect(200)).text;

it('shows waiting top-ups, the ledger totals, HTTP latency by route template and the consumer lag', async () => {
  const [customer, admin] = [await newUser(), await newUser('admin')];
  await money.known(customer);
  const first = await money.topUp(customer, { amount: '20' }, freshReceipt()).expect(201);
  await money.topUp(customer, { amount: '5' }, freshReceipt()).expect(201);
  await money.decide(admin, first.body.payment.id, 'confirmed').expect(200);
  await eventually(async () => ((await money.wallet.balance(customer)) === 20 ? true : undefined), {
    what: 'the top-up to reach the wallet',
  });

  const payments = await scrape(money.service.url);
  expect(series(payments, 'raseed_topups_waiting')).toBe(1);
  expect(series(payments, 'raseed_topups_oldest_waiting_seconds')).toBeGreaterThan(0);
  // Timed under the route's template, never the id in the path.
  expect(
    series(payments, 'http_request_duration_seconds_count', {
      method: 'PUT',
      route: '/api/payments/:id/update-status',
      status: '200',
    }),
  ).toBe(1);
  expect(payments).not.toContain(first.body.payment.id);
  expect(series(payments, 'process_cpu_user_seconds_total', { service: 'payments' })).toBeGreaterThan(0);
  expect(series(payments, 'raseed_outbox_backlog')).toBeGreaterThanOrEqual(0);

  // The wallet's group has read payment.confirmed up to its end (its commit trails the credit
  // by up to half a second: the lag is read from the committed offsets).
  const lag = (text: string) =>
    series(text, 'kafka_consumer_lag', {
      group: money.wallet.config.KAFKA_GROUP!,
      topic: `${money.wallet.config.KAFKA_TOPIC_PREFIX}payment.confirmed`,
    });
  const wallet = await eventually(
    async () => {
      const text = await scrape(money.wallet.service.url);
      return lag(text) === 0 ? text : undefined;
    },
    { what: "the wallet's group to commit payment.confirmed" },
  );
  expect(series(wallet, 'raseed_ledger_dollars', { movement: 'credits' })).toBeGreaterThanOrEqual(20);
  expect(series(wallet, 'raseed_ledger_dollars', { movement: 'debits' })).toBeGreaterThanOrEqual(0);
  expect(series(wallet, 'raseed_outbox_oldest_seconds')).toBeLessThan(60);
});

it('shows the jobs of the queues a service fills', async () => {
  await auth.http().post('/api/reset-password-request').send({ email: auth.adminEmail }).expect(200);
  const text = await scrape(auth.service.url);
  const states = ['waiting', 'active', 'delayed', 'failed'].map((state) =>
    series(text, 'bullmq_jobs', { queue: 'auth-email', state }),
  );
  expect(states.every((n) => typeof n === 'number' && n >= 0)).toBe(true);
  expect(series(text, 'http_request_duration_seconds_count', { route: '/api/reset-password-request' })).toBe(
    1,
  );
});

it('counts what matched no route as one series', async () => {
  const customer = await newUser();
  for (const id of ['a1', 'b2', 'c3'])
    await money.wallet.http().get(`/api/nothing/${id}`).set(bearer(customer));
  const text = await scrape(money.wallet.service.url);
  expect(series(text, 'http_request_duration_seconds_count', { route: 'unmatched', status: '404' })).toBe(3);
  expect(text).not.toContain('/api/nothing');
});
