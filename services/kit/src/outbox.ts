import type { Kafka, Producer } from 'kafkajs';
import { Schema, type Model } from 'mongoose';
import { EVENT_TYPES, type EventEnvelope } from './events';
import { ensureTopics } from './kafka';
import type { DocumentLocks } from './locks';
import type { Logger } from './logger';

/**
 * The outbox lives inside the document whose change it announces: the change and its
 * events are one single-document write (no multi-document transactions needed), made
 * under the document's lock (DocumentLocks), as is the relay's removal of what it sent.
 * The relay publishes pending events and then removes them from the document; consumers
 * drop the rare duplicate by id (a relay stopped between the two sends the batch again).
 * A top-level `hasEvents` flag marks documents with pending events: a plain equality on a
 * top-level field is the one filter the local store evaluates without reading every
 * document into its own process.
 */
export function outboxPlugin(schema: Schema): void {
  schema.add({
    outbox: { type: [Schema.Types.Mixed], default: undefined, select: false },
    hasEvents: { type: Boolean, select: false },
  });
  schema.pre('save', function markEvents() {
    if ((this.get('outbox') as unknown[] | undefined)?.length) this.set('hasEvents', true);
  });
}

/** An update that records events together with a change, in one write: `withEvents({ $set: ... }, event)`. */
export function withEvents<U extends { $set?: Record<string, unknown> }>(
  change: U,
  ...events: EventEnvelope[]
): U & { $set: Record<string, unknown>; $push: { outbox: { $each: EventEnvelope[] } } } {
  return { ...change, $set: { ...change.$set, hasEvents: true }, $push: { outbox: { $each: events } } };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the relay drains any model that uses the plugin
type OutboxModel = Model<any>;

interface PendingDocument {
  _id: unknown;
  outbox?: EventEnvelope[];
}

export class OutboxRelay {
  private producer: Producer;
  private connected = false;
  private topicsReady = false;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;

  private readonly models: OutboxModel[] = [];

  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly topicPrefix: string;
  private readonly partitions: number;

  constructor(
    private readonly kafka: Kafka,
    private readonly locks: DocumentLocks,
    private readonly logger: Logger,
    options: { pollMs?: number; batchSize?: number; topicPrefix?: string; partitions?: number } = {},
  ) {
    this.pollMs = options.pollMs ?? 200;
    this.batchSize = options.batchSize ?? 100;
    this.topicPrefix = options.topicPrefix ?? '';
    this.partitions = options.partitions ?? 3;
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: true,
    });
    this.producer.on(this.producer.events.DISCONNECT, () => {
      this.connected = false;
    });
  }

  /** Adds models whose documents carry outbox entries. */
  watch(...models: OutboxModel[]): void {
    this.models.push(...models);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Publishes without waiting for the next poll, for example right after a write. */
  nudge(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.nudge();
    await this.loop;
    await this.producer.disconnect().catch(() => undefined);
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let published = 0;
      try {
        published = await this.drainOnce();
        failures = 0;
      } catch (err) {
        failures++;
        this.connected = false;
        this.logger.warn({ err, failures }, 'outbox relay could not publish; will retry');
      }
      if (published === 0 && this.running) {
        await this.sleep(failures ? Math.min(5000, this.pollMs * 2 ** failures) : this.pollMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** Publishes one batch of pending events from every model; returns how many were sent. */
  async drainOnce(): Promise<number> {
    let sent = 0;
    for (const model of this.models) {
      const docs = await model
        .find({ hasEvents: true })
        .select('+outbox')
        .limit(this.batchSize)
        .lean<PendingDocument[]>();
      const events = docs.flatMap((doc) => doc.outbox ?? []);
      if (events.length === 0) continue;
      await this.publish(events);
      // New events are only ever appended, so what was published is the head of each outbox.
      // Removing it one checked entry at a time leaves events written meanwhile in place,
      // and needs no more than $pop (a compatible store may lack conditional $pull).
      for (const doc of docs) {
        await this.locks.run(model, doc._id, async () => {
          for (const event of doc.outbox ?? []) {
            await model.updateOne({ _id: doc._id, 'outbox.0.id': event.id }, { $pop: { outbox: -1 } });
          }
          // Writers add events under this same lock, so an outbox found empty here stays so.
          const left = await model.findById(doc._id).select('+outbox').lean<PendingDocument>();
          if (left && !left.outbox?.length)
            await model.updateOne({ _id: doc._id }, { $set: { hasEvents: false } });
        });
      }
      sent += events.length;
    }
    return sent;
  }

  private async publish(events: EventEnvelope[]): Promise<void> {
    if (!this.connected) {
      await this.producer.connect();
      this.connected = true;
    }
    if (!this.topicsReady) {
      const admin = this.kafka.admin();
      await admin.connect();
      try {
        await ensureTopics(
          admin,
          EVENT_TYPES.map((type) => this.topicPrefix + type),
          this.partitions,
        );
      } finally {
        await admin.disconnect();
      }
      this.topicsReady = true;
    }
    const byTopic = new Map<string, { key: string; value: string; headers: Record<string, string> }[]>();
    for (const event of events) {
      const topic = this.topicPrefix + event.type;
      const messages = byTopic.get(topic) ?? [];
      messages.push({ key: event.key, value: JSON.stringify(event), headers: { 'event-id': event.id } });
      byTopic.set(topic, messages);
    }
    await this.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }
}
