import type { Consumer, ConsumerRunConfig, Kafka, KafkaMessage } from 'kafkajs';
import pRetry from 'p-retry';
import type { Connection } from 'mongoose';
import { Schema, type InferSchemaType, type Model } from 'mongoose';
import { parseEvent, type EventEnvelope, type EventType } from './events';
import { ensureTopics, pacedMessages } from './kafka';
import type { Logger } from './logger';
import { isDuplicateKey } from './mongo';
import { carriedContext, inSpan, SpanKind } from './trace-context';

export type EventHandlers = {
  [T in EventType]?: (event: EventEnvelope<T>) => Promise<void>;
};

/** Handlers that keep no processed marker (see withoutMarker). */
const unmarked = new WeakSet<object>();

/**
 * Marks a handler that needs no processed marker: its only write is an insert under a unique
 * key (rule 9), or it writes nothing for most events, so a redelivered event runs it again to
 * no effect. An order's events pass through such handlers in several groups, and the marker's
 * read and insert would cost each of them two store round trips to spare a rare repeat.
 */
export function withoutMarker<T extends EventType>(
  handle: (event: EventEnvelope<T>) => Promise<void>,
): (event: EventEnvelope<T>) => Promise<void> {
  unmarked.add(handle);
  return handle;
}

/**
 * How long a handled event's offset may wait before the group commits it. Each commit is a
 * request the broker writes to its offsets log; committed after every event, an order's
 * events cost each group a commit. Events handled within this time share one commit, and a
 * process that dies first has them sent again, which handlers are written for.
 */
const COMMIT_WITHIN_MS = 500;

const processedSchema = new Schema({ _id: String, type: String, at: Date }, { versionKey: false });

function processedEvents(mongo: Connection) {
  type Processed = InferSchemaType<typeof processedSchema>;
  return (
    (mongo.models.ProcessedEvent as Model<Processed> | undefined) ??
    mongo.model<Processed>('ProcessedEvent', processedSchema, 'processed_events')
  );
}

/**
 * Runs a consumer group over the topics of the given handlers. Each event is applied
 * once per group: its id is remembered after the handler succeeds, and a redelivered
 * event with a remembered id is skipped (except for handlers marked withoutMarker).
 * Handlers are written to be safe to repeat, which covers a crash between the effect
 * and the remembering, and one before the group committed the events it handled (they are
 * committed together within COMMIT_WITHIN_MS, so such a crash sends them again).
 */
export async function startConsumer(options: {
  kafka: Kafka;
  groupId: string;
  mongo: Connection;
  handlers: EventHandlers;
  logger: Logger;
  fromBeginning?: boolean;
  topicPrefix?: string;
  partitions?: number;
  /** See COMMIT_WITHIN_MS. */
  commitWithinMs?: number;
}): Promise<() => Promise<void>> {
  const { kafka, groupId, mongo, handlers, logger } = options;
  const processed = processedEvents(mongo);
  const consumer = kafka.consumer({ groupId });
  // Resolves once this member has its partitions, so events published after start are seen.
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  const topics = Object.keys(handlers).map((type) => (options.topicPrefix ?? '') + type);
  // Subscribing to a topic that is still being created fails, so the topics are made first.
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, topics, options.partitions);
  } finally {
    await admin.disconnect();
  }
  await consumer.connect();
  // A topic another process has just made may have no leader yet for a moment.
  await pRetry(() => consumer.subscribe({ topics, fromBeginning: options.fromBeginning ?? true }), {
    retries: 5,
    minTimeout: 200,
  });
  const offsets = new HandledOffsets(consumer, options.commitWithinMs ?? COMMIT_WITHIN_MS, (err) =>
    logger.warn({ err, groupId }, 'could not commit handled events; trying again'),
  );
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => offsets.keepOnly(payload.memberAssignment));
  const handleMessage = async (topic: string, partition: number, message: KafkaMessage) => {
    const event = parseEvent(message.value?.toString() ?? '');
    if (!event) {
      logger.error({ topic, offset: message.offset }, 'skipping a message that is not a valid event');
      offsets.handled(topic, partition, message.offset);
      return;
    }
    // The event is handled in the trace it was sent in (its headers), or in one of its own.
    const span = {
      kind: SpanKind.CONSUMER,
      parent: carriedContext(message.headers),
      attributes: {
        'messaging.system': 'kafka',
        'messaging.destination.name': topic,
        'messaging.consumer.group.name': groupId,
        'messaging.message.id': event.id,
      },
    };
    await inSpan(`${event.type} process`, span, async () => {
      const marker = `${groupId}:${event.id}`;
      const handle = handlers[event.type] as ((e: EventEnvelope) => Promise<void>) | undefined;
      try {
        if (handle && unmarked.has(handle)) return await handle(event);
        if (await processed.exists({ _id: marker })) return;
        await handle?.(event);
        await processed.create({ _id: marker, type: event.type, at: new Date() }).catch((err: unknown) => {
          if (!isDuplicateKey(err)) throw err;
        });
      } catch (err) {
        throw new HandlingFailed(event.type, err);
      }
    });
    offsets.handled(topic, partition, message.offset);
  };
  const consume: ConsumerRunConfig = { autoCommit: false, ...pacedMessages(consumer, handleMessage) };
  // kafkajs retries a failed event, then restarts the consumer, unless the failure looks like
  // a bug (a TypeError, say) or one of its own that it does not retry: then it stops for good
  // and every later event of the group waits. A group must go on, so it is started again here.
  let stopped = false;
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart || stopped) return;
    logger.error({ err: payload.error, groupId }, 'event consumer stopped; starting it again');
    setTimeout(() => {
      if (stopped) return;
      consumer
        .connect()
        .then(() => consumer.run(consume))
        .catch((err: unknown) => logger.error({ err, groupId }, 'event consumer could not start again'));
    }, 1000);
  });
  await consumer.run(consume);
  await Promise.race([joined, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
  return async () => {
    stopped = true;
    // A stopped consumer commits nothing, so what was handled is committed first.
    await offsets
      .commit()
      .catch((err: unknown) =>
        logger.warn(
          { err, groupId },
          'could not commit handled events before stopping; they will come again',
        ),
      );
    await consumer.disconnect();
  };
}

/**
 * The offsets a group has handled and not yet committed. The first event handled after a commit
 * schedules the next one; what is handled meanwhile joins it.
 */
class HandledOffsets {
  private readonly next = new Map<string, { topic: string; partition: number; offset: string }>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly consumer: Consumer,
    private readonly withinMs: number,
    private readonly failed: (err: unknown) => void,
  ) {}

  handled(topic: string, partition: number, offset: string): void {
    this.next.set(`${topic}:${partition}`, { topic, partition, offset: (BigInt(offset) + 1n).toString() });
    this.schedule();
  }

  private schedule(): void {
    // commit() clears the timer, so the next event handled schedules the next commit.
    this.timer ??= setTimeout(() => {
      this.commit().catch((err: unknown) => {
        this.failed(err);
        if (this.next.size) this.schedule();
      });
    }, this.withinMs).unref();
  }

  /** After a rebalance only the partitions still assigned here are this member's to commit. */
  keepOnly(assignment: Record<string, number[]>): void {
    for (const [key, { topic, partition }] of this.next) {
      if (!assignment[topic]?.includes(partition)) this.next.delete(key);
    }
  }

  async commit(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const offsets = [...this.next.values()];
    if (!offsets.length) return;
    await this.consumer.commitOffsets(offsets);
    // Only what the commit carried is done; a later offset handled meanwhile stays.
    for (const sent of offsets) {
      const key = `${sent.topic}:${sent.partition}`;
      if (this.next.get(key) === sent) this.next.delete(key);
    }
  }
}

/** A failed event, always retried: kafkajs gives up on some errors (a TypeError) for good. */
class HandlingFailed extends Error {
  readonly retriable = true;
  constructor(type: string, cause: unknown) {
    super(`handling ${type} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
