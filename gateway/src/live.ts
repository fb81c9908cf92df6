import {
  createKafka,
  ensureTopics,
  liveSessionFrom,
  pacedMessages,
  parseEvent,
  SessionEnds,
  type EventEnvelope,
  type EventType,
  type Logger,
  type Metrics,
  type SessionKeys,
  type SessionUser,
} from '@raseed/kit';
import cookieParser from 'cookie-parser';
import { Router, type Response } from 'express';
import type IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { GatewayConfig } from './config';

/** Where a signed-in tab opens its stream. */
export const LIVE_PATH = '/api/events';

/**
 * What a page hears: which of its figures changed, never amounts. `wallet` (balance and debt),
 * `discount`, `orders` and `payments` are the user's own; `waiting-orders` and
 * `waiting-payments` (an item became waiting, or was decided) go to every admin.
 */
export type LiveChange =
  'wallet' | 'discount' | 'orders' | 'payments' | 'waiting-orders' | 'waiting-payments';

/** An order's change, to its customer and to every admin. */
const orderChange = ({ userId, orderId }: { userId: string; orderId: string }): Heard => ({
  userId,
  change: 'orders',
  id: orderId,
  admins: 'waiting-orders',
});

/** A payment's change, to its customer and to every admin. */
const paymentChange = ({ userId, paymentId }: { userId: string; paymentId: string }): Heard => ({
  userId,
  change: 'payments',
  id: paymentId,
  admins: 'waiting-payments',
});

/** Each event the stream follows: who hears it and as what. */
const HEARD: { [T in EventType]?: (data: EventEnvelope<T>['data']) => Heard } = {
  'wallet.credited': ({ userId }) => ({ userId, change: 'wallet' }),
  'wallet.debited': ({ userId }) => ({ userId, change: 'wallet' }),
  'wallet.debt-changed': ({ userId }) => ({ userId, change: 'wallet' }),
  'user.discount-changed': ({ userId }) => ({ userId, change: 'discount' }),
  'order.placed': orderChange,
  'order.confirmed': orderChange,
  'order.rejected': orderChange,
  'payment.submitted': paymentChange,
  'payment.confirmed': paymentChange,
  'payment.rejected': paymentChange,
  // Disputed & Stuck: for admins only.
  'order.disputed': () => ({ admins: 'waiting-orders' }),
  'order.stuck': () => ({ admins: 'waiting-orders' }),
};

interface Heard {
  /** The user whose own change it is, and what it is to them. */
  userId?: string;
  change?: LiveChange;
  /** The order or payment that changed: the user's own. */
  id?: string;
  /** What every admin hears of it. */
  admins?: LiveChange;
}

/** Events that end streams rather than feed them. */
const ENDING: EventType[] = ['user.sessions-ended', 'user.deleted'];

export const LIVE_TOPICS = [...(Object.keys(HEARD) as EventType[]), ...ENDING];

interface Stream {
  res: Response;
  user: SessionUser;
  /** When its session expires (ms): the stream ends then, and the page's next one needs a live session. */
  endsAt: number;
}

/** How often an idle stream gets a comment line, so proxies and browsers keep it open. */
const HEARTBEAT_MS = 25_000;
/** How long a page waits before it opens its stream again after the connection is lost. */
const RETRY_MS = 2_000;

/**
 * Pages that update themselves: one server-sent-events stream per signed-in tab, told within a
 * moment of the services' events what changed for its user; the page then asks again for what
 * it shows (so a stream carries no amounts, and a lost event costs nothing a reload would not
 * fix). Every gateway instance reads every event (startLiveFeed), so a tab may be connected to
 * any of them. A stream ends with its session: at its expiry, a logout, a reset or the
 * account's deletion.
 */
export class LiveStreams {
  private readonly byUser = new Map<string, Set<Stream>>();
  private readonly admins = new Set<Stream>();
  private size = 0;
  /** Whether any page listens here: without one, only events that end sessions are worth reading. */
  get listening(): boolean {
    return this.size > 0;
  }
  /** Whether events reach this instance (startLiveFeed has joined); without them no stream is opened. */
  feeding = false;
  private readonly heartbeat: NodeJS.Timeout;
  readonly ends: SessionEnds;

  constructor(
    private readonly keys: SessionKeys,
    redis: IORedis,
    private readonly options: { ttlSeconds: number; perUser: number; max: number },
    private readonly logger: Logger,
    metrics?: Metrics,
  ) {
    this.ends = new SessionEnds(redis, options.ttlSeconds, logger);
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS).unref();
    metrics?.gauge('live_streams', 'Server-sent-event streams open on this gateway', [], () =>
      Promise.resolve([{ value: this.size }]),
    );
  }

  /** GET /api/events: the stream of the signed-in user's changes. */
  router(): Router {
    return Router()
      .use(LIVE_PATH, cookieParser())
      .get(LIVE_PATH, async (req, res) => {
        const user = await liveSessionFrom(req, this.keys, this.ends);
        if (!user) {
          res.status(401).json({ error: 'Please sign in first.' });
          return;
        }
        if (!this.feeding || this.size >= this.options.max) {
          // The page checks by itself every minute meanwhile, and tries its stream again.
          res
            .status(503)
            .set('Retry-After', '30')
            .json({ error: 'Live updates are not available right now.' });
          return;
        }
        if ((this.byUser.get(user.id)?.size ?? 0) >= this.options.perUser) {
          res.status(429).json({ error: 'Too many pages are open for live updates.' });
          return;
        }
        res.writeHead(200, {
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-cache, no-transform',
          Connection: 'keep-alive',
          // nginx and other proxies in front pass each event on at once.
          'X-Accel-Buffering': 'no',
        });
        res.write(`retry: ${RETRY_MS}\n\n`);
        const stream: Stream = { res, user, endsAt: user.signedAt + this.options.ttlSeconds * 1000 };
        this.add(stream);
        req.socket.setNoDelay(true);
        res.on('close', () => this.remove(stream));
      });
  }

  /** Passes one of the services' events on to the streams that should hear it. */
  deliver(event: EventEnvelope): void {
    if (event.type === 'user.sessions-ended' || event.type === 'user.deleted') {
      const { userId } = event.data as { userId: string };
      const before = event.type === 'user.sessions-ended' ? (event.data as { at: number }).at : Infinity;
      if (event.type === 'user.sessions-ended')
        void this.ends.learn(event as EventEnvelope<'user.sessions-ended'>);
      for (const stream of this.byUser.get(userId) ?? []) if (stream.user.signedAt < before) stream.res.end();
      return;
    }
    const hear = HEARD[event.type] as ((data: unknown) => Heard) | undefined;
    if (!hear) return;
    const { userId, change, id, admins } = hear(event.data);
    if (userId && change) {
      const own = message(change, id === undefined ? {} : { id });
      for (const stream of this.byUser.get(userId) ?? []) stream.res.write(own);
    }
    if (!admins) return;
    const waiting = message(admins, {});
    for (const stream of this.admins) stream.res.write(waiting);
  }

  /** Ends every stream (the gateway is stopping): the pages open theirs again on another instance. */
  close(): void {
    this.feeding = false;
    clearInterval(this.heartbeat);
    for (const streams of this.byUser.values()) for (const stream of streams) stream.res.end();
  }

  private add(stream: Stream): void {
    const streams = this.byUser.get(stream.user.id) ?? new Set<Stream>();
    streams.add(stream);
    this.byUser.set(stream.user.id, streams);
    if (stream.user.role === 'admin') this.admins.add(stream);
    this.size += 1;
  }

  private remove(stream: Stream): void {
    const streams = this.byUser.get(stream.user.id);
    if (!streams?.delete(stream)) return;
    if (streams.size === 0) this.byUser.delete(stream.user.id);
    this.admins.delete(stream);
    this.size -= 1;
  }

  /** Keeps idle streams open, and ends those whose session has expired. */
  private beat(): void {
    const now = Date.now();
    for (const streams of this.byUser.values()) {
      for (const stream of streams) {
        if (stream.endsAt <= now) stream.res.end();
        else stream.res.write(': ping\n\n');
      }
    }
    this.logger.debug({ streams: this.size }, 'live streams');
  }
}

function message(change: LiveChange, data: object): string {
  return `event: ${change}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Reads the services' events for the streams of this instance: a consumer group of its own (each
 * instance must see every event), from the newest events on, and the group removed again when the
 * instance stops. A page learns what it missed before it connected by asking when it opens. While
 * Kafka cannot be reached the gateway goes on without live streams, and tries again.
 */
export function startLiveFeed(
  config: Pick<GatewayConfig, 'KAFKA_BROKERS' | 'KAFKA_TOPIC_PREFIX' | 'KAFKA_PARTITIONS'>,
  live: LiveStreams,
  logger: Logger,
): { started: Promise<void>; stop: () => Promise<void> } {
  const kafka = createKafka('gateway', config.KAFKA_BROKERS, logger);
  const groupId = `gateway-live-${hostname()}-${randomUUID()}`;
  const topics = LIVE_TOPICS.map((type) => config.KAFKA_TOPIC_PREFIX + type);
  const ending = new Set(ENDING.map((type) => config.KAFKA_TOPIC_PREFIX + type));
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 500 });
  let stopped = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    live.feeding = true;
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    live.feeding = false;
    if (!payload.restart && !stopped) void start();
  });

  const run = async () => {
    const admin = kafka.admin();
    await admin.connect();
    const ends: { topic: string; partition: number; offset: string }[] = [];
    try {
      await ensureTopics(admin, topics, config.KAFKA_PARTITIONS);
      for (const topic of topics) {
        for (const { partition, offset } of await admin.fetchTopicOffsets(topic))
          ends.push({ topic, partition, offset });
      }
    } finally {
      await admin.disconnect();
    }
    await consumer.connect();
    await consumer.subscribe({ topics });
    await consumer.run({
      // The group is this instance's alone and always starts at the topics' ends: nothing to commit.
      autoCommit: false,
      ...pacedMessages(consumer, async (topic, _partition, raw) => {
        if (!live.listening && !ending.has(topic)) return;
        const event = parseEvent(raw.value?.toString() ?? '');
        if (event) live.deliver(event);
      }),
    });
    // Each topic is read from its end as it was before the group joined, exactly: every event
    // from then on is heard.
    for (const end of ends) consumer.seek(end);
  };
  const start = async (): Promise<void> => {
    while (!stopped) {
      try {
        await run();
        return;
      } catch (err) {
        logger.error({ err }, 'the live feed could not start; pages check by themselves meanwhile');
        await consumer.disconnect().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
    }
  };
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  const started = start().then(() => joined);
  return {
    started,
    stop: async () => {
      stopped = true;
      live.feeding = false;
      await consumer.disconnect();
      const admin = kafka.admin();
      await admin
        .connect()
        .then(() => admin.deleteGroups([groupId]))
        .catch((err: unknown) => logger.warn({ err, groupId }, 'the live feed group could not be removed'))
        .finally(() => admin.disconnect());
    },
  };
}
