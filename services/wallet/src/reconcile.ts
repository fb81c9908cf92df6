import {
  connectMongo,
  createLogger,
  redisConnection,
  DocumentLocks,
  Outbox,
  ServiceClient,
} from '@raseed/kit';
import { loadWalletConfig, type WalletConfig } from './config';
import { entryModel, Ledger } from './data/ledger';
import { reconcile, type CodesCheck, type ConfirmedPayment, type ReconcileReport } from './domain/reconcile';
import type { ReconciledOrder } from './domain/reconcile-orders';

/**
 * The store's records the reconcile checks: this ledger, the payments service's confirmed
 * payments and, when ORDERS_URL is set, every order (the CLI below and the nightly job).
 */
export function reconcileSources(config: WalletConfig, ledger: Ledger) {
  const payments = new ServiceClient('payments', config.PAYMENTS_URL, config.SERVICE_TOKEN);
  const orders = config.ORDERS_URL && new ServiceClient('orders', config.ORDERS_URL, config.SERVICE_TOKEN);
  // The codes are checked in one pass over every code sold: a year of sales takes longer than a page.
  const codes =
    config.ORDERS_URL &&
    new ServiceClient('orders', config.ORDERS_URL, config.SERVICE_TOKEN, { timeoutMs: CODES_CHECK_MS });
  return {
    accounts: () => ledger.accounts(),
    chain: (account: string) => ledger.chain(account),
    confirmedPayments: () => confirmedPayments(payments),
    orders: orders ? () => allOrders(orders) : undefined,
    codes: codes ? () => codes.get<CodesCheck>('/internal/orders/codes/reconcile') : undefined,
  };
}

const CODES_CHECK_MS = 5 * 60_000;

/** One line a person reads of what a reconcile checked. */
export const reconcileSummary = (report: ReconcileReport) =>
  `wallet reconcile: ${report.accounts} accounts, ${report.entries} ledger entries, ` +
  `${report.payments} confirmed payments, ${report.orders} orders (${report.inFlight} still on their way)`;

/** The line of the codes sold from stock: all on confirmed orders, or how many problems (listed as mismatches). */
export function codesSummary(codes: NonNullable<ReconcileReport['codes']>): string {
  const onTheirWay = codes.inFlight ? ` (${codes.inFlight} on orders still on their way)` : '';
  const problems = `${codes.problems} ${codes.problems === 1 ? 'problem' : 'problems'}`;
  return codes.problems
    ? `codes: ${codes.sold} sold, ${problems} (listed below)${onTheirWay}`
    : `codes: ${codes.sold} sold, all on confirmed orders${onTheirWay}`;
}

/**
 * npm run wallet:reconcile: checks every account's chain against itself and against the
 * payments service's confirmed payments; prints a summary and exits 1 on any mismatch.
 */
export async function runReconcile(config = loadWalletConfig()): Promise<number> {
  const logger = createLogger('reconcile', 'warn');
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const redis = redisConnection(config.REDIS_URL);
  try {
    const ledger = new Ledger(entryModel(mongo), new DocumentLocks(redis), redis, new Outbox(mongo));
    let lastShown = 0;
    const report = await reconcile({
      ...reconcileSources(config, ledger),
      progress: (done, total) => {
        if (Date.now() - lastShown < 2000 && done < total) return;
        lastShown = Date.now();
        process.stderr.write(`  checked ${done} of ${total} accounts\n`);
      },
    });
    console.log(reconcileSummary(report));
    if (report.codes) console.log(codesSummary(report.codes));
    for (const dispute of report.disputes) console.log(`  DISPUTED ${dispute}`);
    for (const problem of report.problems) console.log(`  MISMATCH ${problem}`);
    console.log(report.problems.length ? `${report.problems.length} mismatches` : 'no mismatches');
    return report.problems.length ? 1 : 0;
  } finally {
    logger.flush();
    await mongo.close();
    redis.disconnect();
  }
}

async function* confirmedPayments(payments: ServiceClient): AsyncIterable<ConfirmedPayment> {
  for (let page = 1; ; page++) {
    const answer = await payments.get<{ payments: ConfirmedPayment[]; totalPages: number }>(
      `/internal/payments/confirmed?page=${page}&limit=500`,
    );
    yield* answer.payments;
    if (page >= answer.totalPages) return;
  }
}

async function* allOrders(orders: ServiceClient): AsyncIterable<ReconciledOrder> {
  for (let after: string | null = null; ;) {
    const page: { orders: ReconciledOrder[]; next: string | null } = await orders.get(
      `/internal/orders/reconcile?limit=500${after ? `&after=${after}` : ''}`,
    );
    yield* page.orders;
    if (!page.next) return;
    after = page.next;
  }
}

if (require.main === module) {
  runReconcile().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`wallet reconcile failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(2);
    },
  );
}
