import { setTimeout as sleep } from 'node:timers/promises';
import { Job, Queue, Worker, type JobsOptions, type Processor } from 'bullmq';
import IORedis from 'ioredis';
import type { Logger } from './logger';
import { carriedContext, inSpan, SpanKind, traceCarrier, type TraceCarrier } from './trace-context';

/**
 * The connection a process answers requests with (locks, hints, queues' adds, rate limits):
 * while Redis is away or stalled its commands fail within a couple of seconds, answered 503
 * (isOutage), instead of holding every request until Redis is back. Workers block on a
 * connection of their own that waits for Redis, as BullMQ requires (createWorker).
 */
export function redisConnection(url: string): IORedis {
  return new IORedis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: 2_000,
    enableReadyCheck: true,
    // A command waits for one reconnection attempt: tried every 200 ms at most, not every 2 s.
    retryStrategy: (times) => Math.min(times * 50, 200),
  });
}

// Sets the key to the number only if it is higher than the one stored (with a lifetime, if given).
const RAISE = `local c = tonumber(redis.call('get', KEYS[1]) or '-1')
if c < tonumber(ARGV[1]) then
  if ARGV[2] == '' then redis.call('set', KEYS[1], ARGV[1]) else redis.call('set', KEYS[1], ARGV[1], 'EX', ARGV[2]) end
end`;

/** Moves a number kept in Redis only forward, whichever writer sets it last. */
export async function raiseTo(
  redis: IORedis,
  key: string,
  value: number,
  ttlSeconds?: number,
): Promise<void> {
  await redis.eval(RAISE, 1, key, String(value), ttlSeconds === undefined ? '' : String(ttlSeconds));
}

/**
 * The store's BullMQ queues. The services that fill and work them and the gateway's
 * operator board (/admin/queues) read the names from here.
 */
export const QUEUE_NAMES = {
  /** auth: password-reset, contact, top-up and order e-mails. */
  email: 'auth-email',
  /** catalog: supplier catalogue sync. */
  catalogueSync: 'catalog-sync',
  /** orders: one placement at the supplier per paid supplier order. */
  orderPlacement: 'order-placement',
  /** orders: supplier order status sync. */
  orderStatus: 'order-status',
  /** wallet: the nightly reconcile of the ledger against payments and orders. */
  reconcile: 'wallet-reconcile',
  /** auth: the admins' digest of new waiting top-ups and orders. */
  adminDigest: 'auth-admin-digest',
} as const;

export const defaultJobOptions: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000 },
};

export function createQueue<T>(
  name: string,
  connection: IORedis,
  logger: Logger,
  prefix = 'raseed',
): Queue<T> {
  const queue = new Queue<T>(name, { connection, prefix, defaultJobOptions });
  // Without a listener BullMQ writes each lost connection to the console, past the log.
  queue.on('error', (err) => logger.warn({ queue: name, err }, 'queue: Redis error'));
  return queue;
}

/** A job's data with the trace it is queued in, which its worker continues. */
export function withTrace<T extends object>(data: T): T & { trace?: TraceCarrier } {
  const trace = traceCarrier();
  return trace ? { ...data, trace } : data;
}

/** A job run by runJob failed in its worker; the message is the job's failed reason. */
export class JobFailed extends Error {}

/**
 * Queues a job now, tried once, and waits up to `waitMs` for its worker's answer: undefined if
 * it has not finished by then (it still runs). A job that fails throws JobFailed with its reason. The job's
 * state is read every `everyMs` rather than awaited through QueueEvents, whose first events can
 * be missed (taskforcesh/bullmq#2874).
 */
export async function runJob<T, R>(
  queue: Queue<T>,
  name: string,
  data: T,
  waitMs: number,
  everyMs = 100,
): Promise<R | undefined> {
  // A queue of some data type: its job names are plain strings.
  const { id } = await (queue as Queue).add(name, data, { attempts: 1 });
  const until = Date.now() + waitMs;
  for (;;) {
    const job = await Job.fromId<T, R>(queue, id!);
    if (!job) throw new Error(`job ${id} of ${queue.name} was removed before it finished`);
    if (job.finishedOn) {
      if (job.failedReason) throw new JobFailed(job.failedReason);
      return job.returnvalue;
    }
    const left = until - Date.now();
    if (left <= 0) return undefined;
    await sleep(Math.min(everyMs, left));
  }
}

export function createWorker<T, R = unknown>(
  name: string,
  processor: Processor<T, R>,
  connection: IORedis,
  logger: Logger,
  options: { concurrency?: number; prefix?: string } = {},
): Worker<T, R> {
  // A worker blocks its connection while waiting for jobs, so it gets one of its own.
  const own = connection.duplicate({ maxRetriesPerRequest: null, commandTimeout: undefined });
  // A job runs in the trace it was queued in (see withTrace), or in one of its own.
  const traced: Processor<T, R> = (job, token) =>
    inSpan(
      `${name} ${job.name}`,
      {
        kind: SpanKind.CONSUMER,
        parent: carriedContext((job.data as { trace?: TraceCarrier } | undefined)?.trace),
        attributes: {
          'messaging.system': 'bullmq',
          'messaging.destination.name': name,
          'job.id': job.id ?? '',
        },
      },
      () => processor(job, token),
    );
  const worker = new Worker<T, R>(name, traced, {
    connection: own,
    prefix: options.prefix ?? 'raseed',
    concurrency: options.concurrency ?? 4,
  });
  worker.on('failed', (job, err) =>
    logger.warn({ queue: name, jobId: job?.id, attempt: job?.attemptsMade, err }, 'job failed'),
  );
  worker.on('error', (err) => logger.error({ queue: name, err }, 'worker error'));
  worker.on('closed', () => void own.quit().catch(() => undefined));
  return worker;
}
