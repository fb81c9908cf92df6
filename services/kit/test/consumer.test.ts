import {
  createEvent,
  createKafka,
  createLogger,
  ensureTopics,
  FETCH_EVERY_MS,
  pacedMessages,
  startConsumer,
  withoutMarker,
  type EventEnvelope,
} from '@raseed/kit';
import {
  dropDatabase,
  eventually,
  KAFKA_BROKERS,
  MONGO_URL,
  TEST_TOPIC_PREFIX,
  uniqueName,
} from '@raseed/kit/testing';
import type { Producer } from 'kafkajs';
import mongoose, { type Connection } from 'mongoose';

const logger = createLogger('kit-test', 'silent');
const kafka = createKafka('kit-test', KAFKA_BROKERS, logger);
const dbName = uniqueName('raseed_kit_consumer_test_');
const groupId = uniqueName('kit-test-');
const deletions: EventEnvelope<'user.deleted'>[] = [];
/** What a handler that keeps no marker saw, redeliveries included. */
const discounts: EventEnvelope<'user.discount-changed'>[] = [];
/** Users whose first deletion the handler fails on, as a bug would (a TypeError). */
const failOnce = new Set<string>();
const processedEvents = () => conn.collection<{ _id: string; type: string; at: Date }>('processed_events');
let conn: Connection;
const TOPIC = `${TEST_TOPIC_PREFIX}user.deleted`;
const UNMARKED_TOPIC = `${TEST_TOPIC_PREFIX}user.discount-changed`;
let producer: Producer;
let stopConsumer: () => Promise<void>;

beforeAll(async () => {
  conn = await mongoose.createConnection(MONGO_URL, { dbName }).asPromise();
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, [TOPIC]);
  await admin.disconnect();
  producer = kafka.producer();
  await producer.connect();
  stopConsumer = await startConsumer({
    kafka,
    groupId,
    mongo: conn,
    logger,
    topicPrefix: TEST_TOPIC_PREFIX,
    handlers: {
      'user.deleted': async (event) => {
        if (failOnce.delete(event.data.userId))
          throw new TypeError("Cannot read properties of null (reading 'at')");
        deletions.push(event);
      },
      'user.discount-changed': withoutMarker(async (event) => {
        discounts.push(event);
      }),
    },
  });
});

afterAll(async () => {
  await stopConsumer();
  await producer.disconnect();
  await conn.close();
  await dropDatabase(dbName);
});

async function until(done: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

describe('startConsumer', () => {
  it('skips a message that is not an event and applies each distinct event once', async () => {
    const userId = uniqueName('u');
    const first = createEvent('kit-test', 'user.deleted', userId, { userId });
    const second = createEvent('kit-test', 'user.deleted', userId, { userId });
    const ours = (e: EventEnvelope) => e.key === userId;
    // One key, so one partition: the garbage is read before the events behind it.
    await producer.send({
      topic: TOPIC,
      messages: [
        { key: userId, value: 'this is not an event' },
        { key: userId, value: JSON.stringify({ ...first, data: { userId: 42 } }) },
        ...[first, first, second].map((e) => ({ key: userId, value: JSON.stringify(e) })),
      ],
    });

    await until(() => deletions.filter(ours).length >= 2);
    await new Promise((r) => setTimeout(r, 1500)); // room for a wrongly repeated delivery to show
    expect(deletions.filter(ours).map((e) => e.id)).toEqual([first.id, second.id]);
    expect(deletions.find((e) => e.id === first.id)).toEqual(first);

    const markers = await processedEvents()
      .find({ _id: { $in: [first.id, second.id].map((id) => `${groupId}:${id}`) } })
      .toArray();
    expect(markers).toHaveLength(2);
    expect(markers[0]).toMatchObject({ type: 'user.deleted', at: expect.any(Date) });
  });

  it('skips an event whose id this group already applied, even if sent again later', async () => {
    const userId = uniqueName('u');
    const event = createEvent('kit-test', 'user.deleted', userId, { userId });
    await processedEvents().insertOne({ _id: `${groupId}:${event.id}`, type: event.type, at: new Date() });
    const after = createEvent('kit-test', 'user.deleted', userId, { userId });
    await producer.send({
      topic: TOPIC,
      messages: [event, after].map((e) => ({ key: userId, value: JSON.stringify(e) })),
    });

    await until(() => deletions.some((e) => e.id === after.id));
    expect(deletions.filter((e) => e.key === userId).map((e) => e.id)).toEqual([after.id]);
  });

  it('goes on after a handler fails as a bug would: the event is tried again, and the group keeps consuming', async () => {
    const userId = uniqueName('u');
    failOnce.add(userId);
    const failing = createEvent('kit-test', 'user.deleted', userId, { userId });
    const later = createEvent('kit-test', 'user.deleted', userId, { userId });
    await producer.send({
      topic: TOPIC,
      messages: [failing, later].map((e) => ({ key: userId, value: JSON.stringify(e) })),
    });

    await until(() => deletions.some((e) => e.id === later.id));
    expect(failOnce.has(userId)).toBe(false);
    expect(deletions.filter((e) => e.key === userId).map((e) => e.id)).toEqual([failing.id, later.id]);
  });

  it('keeps no marker for a handler marked withoutMarker: a redelivered event runs it again', async () => {
    const userId = new mongoose.Types.ObjectId().toString();
    const event = createEvent('kit-test', 'user.discount-changed', userId, {
      userId,
      percentage: 5,
      setAt: new Date().toISOString(),
    });
    await producer.send({
      topic: UNMARKED_TOPIC,
      messages: [event, event].map((e) => ({ key: userId, value: JSON.stringify(e) })),
    });

    await until(() => discounts.filter((e) => e.id === event.id).length >= 2);
    expect(discounts.filter((e) => e.id === event.id)).toEqual([event, event]);
    expect(await processedEvents().countDocuments({ _id: `${groupId}:${event.id}` })).toBe(0);
  });
});

describe('committing', () => {
  it('commits the events a group handled together after a wait, and at once when it stops', async () => {
    const topicPrefix = `${uniqueName('kit-commit-')}.`;
    const topic = `${topicPrefix}user.deleted`;
    const group = uniqueName('kit-commit-');
    const seen: string[] = [];
    const start = () =>
      startConsumer({
        kafka,
        groupId: group,
        mongo: conn,
        logger,
        topicPrefix,
        commitWithinMs: 10_000,
        handlers: { 'user.deleted': withoutMarker(async (event) => void seen.push(event.id)) },
      });
    const admin = kafka.admin();
    await admin.connect();
    /** How many of the topic's events the group has committed (one key: one partition). */
    const committed = async () => {
      const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      return offsets!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
    };
    const send = async (count: number) => {
      const events = Array.from({ length: count }, () =>
        createEvent('kit-test', 'user.deleted', 'one', { userId: 'one' }),
      );
      await producer.send({ topic, messages: events.map((e) => ({ key: 'one', value: JSON.stringify(e) })) });
    };
    try {
      let stop = await start();
      await send(5);
      await until(() => seen.length === 5);
      // Handled, and waiting for the commit the first of them scheduled.
      expect(await committed()).toBe(0);
      await eventually(async () => ((await committed()) === 5 ? true : undefined), { timeoutMs: 30_000 });

      await send(3);
      await until(() => seen.length === 8);
      await stop();
      expect(await committed()).toBe(8);

      // The group goes on after what it committed: nothing it handled comes again.
      stop = await start();
      await send(1);
      await until(() => seen.length >= 9);
      await new Promise((r) => setTimeout(r, 1000)); // room for a wrongly repeated delivery to show
      await stop();
      expect(seen).toHaveLength(9);
      expect(new Set(seen).size).toBe(9);
    } finally {
      await admin.disconnect();
    }
  });
});

describe('pacing', () => {
  it('lets a busy consumer fetch at most once every FETCH_EVERY_MS, and loses nothing', async () => {
    const topic = `${uniqueName('kit-paced-')}.user.deleted`;
    const paced = kafka.consumer({ groupId: uniqueName('kit-paced-') });
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopics(admin, [topic], 1);
    await admin.disconnect();
    /** When each fetch began, and which of them brought events. */
    let began = 0;
    paced.on(paced.events.FETCH_START, () => {
      began = Date.now();
    });
    const bringing = new Set<number>();
    const seen: string[] = [];
    await paced.connect();
    try {
      await paced.subscribe({ topics: [topic], fromBeginning: true });
      await paced.run({
        ...pacedMessages(paced, async (_topic, _partition, message) => {
          bringing.add(began);
          seen.push(message.value!.toString());
        }),
      });
      // Events one at a time, each as soon as the one before is stored: a busy topic.
      for (let i = 0; i < 100; i++) await producer.send({ topic, messages: [{ value: String(i) }] });
      await until(() => seen.length === 100);
      expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => String(i)));
      const starts = [...bringing].sort((a, b) => a - b);
      // A timer may fire within a millisecond of its time as Date.now() reads it.
      for (let i = 1; i < starts.length; i++)
        expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(FETCH_EVERY_MS - 1);
    } finally {
      await paced.disconnect();
    }
  });
});
