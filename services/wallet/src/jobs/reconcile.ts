import { createQueue, createWorker, QUEUE_NAMES, type Logger, type Metrics } from '@raseed/kit';
import type IORedis from 'ioredis';
import type { WalletConfig } from '../config';
import type { Ledger } from '../data/ledger';
import { reconcile } from '../domain/reconcile';
import { codesSummary, reconcileSources, reconcileSummary } from '../reconcile';

/** What a nightly run found, kept as its job's result (shown on the queue board). */
export interface ReconcileResult {
  summary: string;
  mismatches: number;
  /** The first mismatches, with their ids and the amounts at stake; npm run reconcile lists them all. */
  problems: string[];
  disputes: number;
  at: string;
}

const SHOWN_PROBLEMS = 50;

/**
 * The reconcile as a BullMQ job on a schedule (RECONCILE_CRON, nightly by default): one run
 * per tick whatever the number of wallet instances (the scheduler is kept once in Redis and a
 * job is taken by one worker). Its result is the job's return value, read by the operators'
 * metrics (raseed_reconcile_mismatches) and shown on the queue board.
 */
export function reconcileJobs(
  redis: IORedis,
  logger: Logger,
  config: WalletConfig,
  ledger: Ledger,
  metrics: Metrics,
) {
  const queue = createQueue<{ reason: string }>(QUEUE_NAMES.reconcile, redis, logger, config.QUEUE_PREFIX);
  const worker = createWorker<{ reason: string }, ReconcileResult>(
    QUEUE_NAMES.reconcile,
    async () => {
      const report = await reconcile(reconcileSources(config, ledger));
      const result: ReconcileResult = {
        summary: report.codes
          ? `${reconcileSummary(report)}; ${codesSummary(report.codes)}`
          : reconcileSummary(report),
        mismatches: report.problems.length,
        problems: report.problems.slice(0, SHOWN_PROBLEMS),
        disputes: report.disputes.length,
        at: new Date().toISOString(),
      };
      if (result.mismatches) logger.error(result, 'the reconcile found mismatches');
      else logger.info({ summary: result.summary }, 'reconcile clean');
      return result;
    },
    redis,
    logger,
    { concurrency: 1, prefix: config.QUEUE_PREFIX },
  );

  /** The newest run's result, if any run finished. */
  const latest = async (): Promise<ReconcileResult | undefined> => {
    const [job] = await queue.getJobs(['completed'], 0, 0, false);
    return job?.returnvalue as ReconcileResult | undefined;
  };
  metrics.watchQueue(queue);
  metrics.figure(
    'raseed_reconcile_mismatches',
    'Mismatches the newest reconcile run found (absent before the first run)',
    async () => (await latest())?.mismatches,
  );
  metrics.figure(
    'raseed_reconcile_last_run_timestamp_seconds',
    'When the newest reconcile run finished',
    async () => {
      const result = await latest();
      return result && Date.parse(result.at) / 1000;
    },
  );

  return {
    queue,
    latest,
    async start() {
      await queue.upsertJobScheduler(
        'reconcile-nightly',
        { pattern: config.RECONCILE_CRON },
        { name: 'reconcile', data: { reason: 'schedule' } },
      );
    },
    /** A run now, besides the schedule's. */
    runNow: () => queue.add('reconcile', { reason: 'asked' }),
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
