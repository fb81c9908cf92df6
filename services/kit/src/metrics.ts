import type { Queue } from 'bullmq';
import type { RequestHandler } from 'express';
import type { Kafka } from 'kafkajs';
import client from 'prom-client';
import type { Outbox } from './outbox';

export type Labels = Record<string, string>;
export type Reading = { labels?: Labels; value: number };

/** Seconds, from 5 ms (a cached page) to 10 s (a supplier call timing out). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** A figure that costs a store query or a broker round trip is read at most this often. */
const READ_EVERY_MS = 10_000;

/**
 * A process's Prometheus metrics (served at /metrics): process figures, HTTP latency by method,
 * route template and status, and gauges read when scraped (outbox, consumer lag, queues and the
 * service's own business figures). Every series carries the service's name.
 */
export class Metrics {
  readonly registry = new client.Registry();
  private readonly requests: client.Histogram<'method' | 'route' | 'status'>;
  /** The BullMQ queues this process fills, all read by the one bullmq_jobs gauge. */
  private readonly queues: Queue[] = [];

  constructor(readonly service: string) {
    this.registry.setDefaultLabels({ service });
    // The event loop's delay sampled every 50 ms rather than prom-client's 10: at 10 ms the
    // sampling timer alone cost an idle process about 4 ms of CPU a second (1 ms at 50). A stall
    // of 50 ms or more is still always seen; a shorter one in proportion to its length.
    client.collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 50 });
    this.requests = new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.gauge('bullmq_jobs', 'BullMQ jobs by queue and state', ['queue', 'state'], async () => {
      const readings: Reading[] = [];
      for (const queue of this.queues) {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
        for (const [state, value] of Object.entries(counts)) {
          readings.push({ labels: { queue: queue.name, state }, value });
        }
      }
      return readings;
    });
  }

  /**
   * Times every request under its route template (`/api/orders/:id`), never its raw path, so
   * ids do not make a series each. `route` names what the request matched when Express has no
   * route for it (the gateway's proxied prefixes); otherwise unmatched requests count as one.
   */
  timing(
    route: (req: Parameters<RequestHandler>[0]) => string | undefined = () => undefined,
  ): RequestHandler {
    return (req, res, next) => {
      const end = this.requests.startTimer();
      res.once('finish', () => {
        const template = req.route?.path as string | undefined;
        end({
          method: req.method,
          route: template ? `${req.baseUrl}${template}` : (route(req) ?? 'unmatched'),
          status: String(res.statusCode),
        });
      });
      next();
    };
  }

  /** GET /metrics in Prometheus's text format. */
  handler(): RequestHandler {
    return async (_req, res) => {
      res.type(this.registry.contentType).send(await this.registry.metrics());
    };
  }

  /**
   * A gauge whose readings come from `read` when scraped, at most every READ_EVERY_MS (the
   * last readings are served in between). A read that fails leaves the gauge without values.
   */
  gauge(name: string, help: string, labelNames: string[], read: () => Promise<Reading[]>): void {
    let last: { at: number; readings: Reading[] } | undefined;
    new client.Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        if (!last || Date.now() - last.at > READ_EVERY_MS) {
          last = { at: Date.now(), readings: await read().catch(() => []) };
        }
        this.reset();
        for (const { labels, value } of last.readings) {
          if (labels) this.set(labels, value);
          else this.set(value);
        }
      },
    });
  }

  /** A gauge without labels: the one figure `read` gives when scraped (none while it gives undefined). */
  figure(name: string, help: string, read: () => Promise<number | undefined>): void {
    this.gauge(name, help, [], async () => {
      const value = await read();
      return value === undefined ? [] : [{ value }];
    });
  }

  /** What the outbox still has to send, and how long its oldest record has waited. */
  watchOutbox(outbox: Outbox): void {
    this.figure('raseed_outbox_backlog', 'Outbox records not yet published to Kafka', () =>
      outbox.records.countDocuments(),
    );
    this.figure(
      'raseed_outbox_oldest_seconds',
      'Age of the oldest outbox record not yet published (0 when none)',
      async () => {
        const oldest = await outbox.records.findOne().sort({ order: 1 }).lean();
        const age = oldest ? (Date.now() - oldest.order.getTimestamp().getTime()) / 1000 : 0;
        return Math.max(0, age);
      },
    );
  }

  /** Messages a consumer group has still to read, per topic and partition. */
  watchConsumerLag(kafka: Kafka, groupId: string, topics: string[]): void {
    this.gauge(
      'kafka_consumer_lag',
      'Messages not yet consumed by the group, per topic and partition',
      ['group', 'topic', 'partition'],
      async () => {
        const admin = kafka.admin();
        await admin.connect();
        try {
          const committed = await admin.fetchOffsets({ groupId, topics });
          const readings: Reading[] = [];
          for (const { topic, partitions } of committed) {
            const ends = await admin.fetchTopicOffsets(topic);
            for (const { partition, offset } of partitions) {
              const end = ends.find((e) => e.partition === partition);
              if (!end) continue;
              // A group that has committed nothing yet has all of the topic still to read.
              const from = Number(offset) < 0 ? Number(end.low) : Number(offset);
              readings.push({
                labels: { group: groupId, topic, partition: String(partition) },
                value: Math.max(0, Number(end.high) - from),
              });
            }
          }
          return readings;
        } finally {
          await admin.disconnect();
        }
      },
    );
  }

  /** Jobs waiting, active, delayed and failed per BullMQ queue this process fills (bullmq_jobs). */
  watchQueue(queue: Queue): void {
    this.queues.push(queue);
  }
}
