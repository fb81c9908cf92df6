/**
 * npm run bench: speed and capacity figures, measured on this machine's local
 * infrastructure. It prints; it never fails for being slow.
 */
import { signSession, toMicros } from '@raseed/kit';
import { dropDatabase, openDatabase, publishEvents, testEnv } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import supertest from 'supertest';
import { loadPaymentsConfig } from '../../services/payments/src/config';
import { startPayments } from '../../services/payments/src/service';
import { RECEIPT } from '../../services/payments/test/support';
import { loadWalletConfig } from '../../services/wallet/src/config';
import { startWallet } from '../../services/wallet/src/service';

const CONCURRENCY = 16;

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

async function main() {
  const walletConfig = loadWalletConfig(testEnv('wallet'));
  const wallet = await startWallet(walletConfig);
  const paymentsConfig = loadPaymentsConfig(testEnv('payments', { WALLET_URL: wallet.url }));
  const payments = await startPayments(paymentsConfig);
  const scratch = await openDatabase(`raseed_bench_${Date.now()}`);
  const http = supertest(payments.url);
  const walletHttp = supertest(wallet.url);
  const secret = walletConfig.JWT_SECRET;
  const line = (label: string, value: string) => console.log(`  ${label.padEnd(58)} ${value}`);

  try {
    console.log(
      `Raseed bench (${new Date().toISOString()}; local store, ${CONCURRENCY} requests at a time)\n`,
    );

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
    console.log('Payment confirmed -> balance visible (200 confirmations, one at a time)');
    line('p50', `${percentile(latencies, 50).toFixed(0)} ms`);
    line('p99', `${percentile(latencies, 99).toFixed(0)} ms`);

    // --- wallet debits per second
    const internal = (path: string, body: object) =>
      walletHttp.post(path).set('x-service-token', walletConfig.SERVICE_TOKEN).send(body);
    const debit = (account: string) =>
      internal(`/internal/orders/${new Types.ObjectId()}/debit`, {
        userId: account,
        amount: toMicros(0.01),
        productName: 'bench',
      });
    const raw = scratch.collection('inserts');
    const rawRate = await rate(1000, CONCURRENCY, (i) =>
      raw.insertOne({ account: `a${i % 100}`, seq: i, amount: 1, at: new Date() }),
    );
    const one = customers[0]!.id;
    const oneRate = await rate(500, CONCURRENCY, () => debit(one));
    const hundred = customers.slice(0, 100).map((c) => c.id);
    const hundredRate = await rate(1000, CONCURRENCY, (i) => debit(hundred[i % 100]!));
    console.log('\nWallet debits per second (each: lock, last entry, checked insert, outbox)');
    line('raw inserts into the same store', `${rawRate.toFixed(0)} /s`);
    line(
      'debits on one account (500)',
      `${oneRate.toFixed(0)} /s  (${((oneRate / rawRate) * 100).toFixed(1)}% of raw inserts)`,
    );
    line(
      'debits across 100 accounts (1000)',
      `${hundredRate.toFixed(0)} /s  (${((hundredRate / rawRate) * 100).toFixed(1)}% of raw inserts)`,
    );
  } finally {
    await payments.stop();
    await wallet.stop();
    await scratch.dropDatabase();
    await scratch.close();
    await dropDatabase(paymentsConfig.MONGO_DB);
    await dropDatabase(walletConfig.MONGO_DB);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
