import { connectMongo, createLogger, redisConnection, DocumentLocks, ServiceClient } from '@raseed/kit';
import { loadWalletConfig } from './config';
import { entryModel, Ledger } from './data/ledger';
import { reconcile, type ConfirmedPayment } from './domain/reconcile';

/**
 * npm run wallet:reconcile: checks every account's chain against itself and against the
 * payments service's confirmed payments; prints a summary and exits 1 on any mismatch.
 */
export async function runReconcile(config = loadWalletConfig()): Promise<number> {
  const logger = createLogger('reconcile', 'warn');
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  const redis = redisConnection(config.REDIS_URL);
  try {
    const ledger = new Ledger(entryModel(mongo), new DocumentLocks(redis), redis);
    const payments = new ServiceClient('payments', config.PAYMENTS_URL, config.SERVICE_TOKEN);
    let lastShown = 0;
    const report = await reconcile({
      accounts: () => ledger.accounts(),
      chain: (account) => ledger.chain(account),
      confirmedPayments: () => confirmedPayments(payments),
      progress: (done, total) => {
        if (Date.now() - lastShown < 2000 && done < total) return;
        lastShown = Date.now();
        process.stderr.write(`  checked ${done} of ${total} accounts\n`);
      },
    });
    console.log(
      `wallet reconcile: ${report.accounts} accounts, ${report.entries} ledger entries, ` +
        `${report.payments} confirmed payments (${report.inFlight} still on their way)`,
    );
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

if (require.main === module) {
  runReconcile().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`wallet reconcile failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(2);
    },
  );
}
