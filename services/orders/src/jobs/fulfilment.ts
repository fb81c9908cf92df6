import {
  ADMIN_RUN,
  createQueue,
  createWorker,
  runJob,
  QUEUE_NAMES,
  supplierSync,
  withTrace,
  type Logger,
  type SyncAnswer as KitSyncAnswer,
} from '@raseed/kit';
import type IORedis from 'ioredis';
import type { FulfilmentDeps } from '../domain/deps';
import { placeAtSupplier, syncStatuses, type SyncResult } from '../domain/fulfilment';

export const PLACEMENT_QUEUE = QUEUE_NAMES.orderPlacement;
export const STATUS_QUEUE = QUEUE_NAMES.orderStatus;

export interface FulfilmentOptions {
  prefix: string;
  attempts: number;
  backoffMs: number;
  syncEverySeconds: number;
}

/** An admin's sync's answer: its figures, or why the supplier could not be asked. */
export type SyncAnswer = KitSyncAnswer<SyncResult>;

/**
 * The supplier's side of orders: a placement job per paid supplier order (its job id is the
 * order id, so it is queued once), retried with backoff, and a repeatable job that asks the
 * supplier about the orders it took.
 */
export function fulfilmentJobs(
  redis: IORedis,
  logger: Logger,
  deps: FulfilmentDeps,
  options: FulfilmentOptions,
) {
  const placements = createQueue<{ orderId: string }>(PLACEMENT_QUEUE, redis, logger, options.prefix);
  const statuses = createQueue<{ reason: string }>(STATUS_QUEUE, redis, logger, options.prefix);
  const placer = createWorker<{ orderId: string }>(
    PLACEMENT_QUEUE,
    async (job) => {
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const order = await placeAtSupplier(deps, job.data.orderId, lastAttempt);
      logger.info(
        { orderId: job.data.orderId, status: order?.status, supplierOrderId: order?.externalId },
        'supplier order placed',
      );
    },
    redis,
    logger,
    { prefix: options.prefix },
  );
  const syncer = createWorker<{ reason: string }, SyncAnswer>(
    STATUS_QUEUE,
    async (job) => {
      const answer = await supplierSync(job.data.reason, () => syncStatuses(deps));
      if ('supplierError' in answer)
        logger.warn(
          { reason: job.data.reason, ...answer },
          'the supplier could not be asked about its orders',
        );
      else if (answer.checked)
        logger.info({ reason: job.data.reason, ...answer }, 'supplier order statuses synced');
      return answer;
    },
    redis,
    logger,
    { concurrency: 1, prefix: options.prefix },
  );

  return {
    queues: [placements, statuses],
    /**
     * Syncs statuses now in the job's worker, never in the caller's request, and waits up to
     * `waitMs` for its answer (undefined if it is still running).
     */
    syncNow: (waitMs: number) =>
      runJob<{ reason: string }, SyncAnswer>(statuses, 'sync', withTrace({ reason: ADMIN_RUN }), waitMs),
    /** Queues the placement of a paid supplier order; a placement that failed for good is tried again. */
    async place(orderId: string): Promise<boolean> {
      const earlier = await placements.getJob(orderId);
      if (earlier && (await earlier.isFailed())) {
        await earlier.retry();
        return true;
      }
      if (earlier && !(await earlier.isCompleted())) return false;
      if (earlier) await earlier.remove();
      await placements.add('place', withTrace({ orderId }), {
        jobId: orderId,
        attempts: options.attempts,
        backoff: { type: 'exponential', delay: options.backoffMs },
      });
      return true;
    },
    async start() {
      await statuses.upsertJobScheduler(
        'order-status-every',
        { every: options.syncEverySeconds * 1000 },
        { name: 'sync', data: { reason: 'schedule' } },
      );
    },
    async close() {
      await Promise.all([placer.close(), syncer.close()]);
      await Promise.all([placements.close(), statuses.close()]);
    },
  };
}
