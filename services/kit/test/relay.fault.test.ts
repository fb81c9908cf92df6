import {
  createLogger,
  Outbox,
  OutboxRelay,
  redisConnection,
  startConsumer,
  withoutMarker,
  type EventEnvelope,
} from '@raseed/kit';
import {
  dropDatabase,
  eventually,
  infra,
  KAFKA_BROKERS,
  MONGO_URL,
  republishEvents,
  readEvents,
  TEST_TOPIC_PREFIX,
  registeredEvent,
  uniqueName,
} from '@raseed/kit/testing';
import { Kafka, logLevel } from 'kafkajs';
import mongoose, { type Connection } from 'mongoose';

/**
 * Kafka stalls (SIGSTOP) while the store sends and consumes events. A send times out for the
 * relay and is written when the broker resumes; the relay then sends the events again, in a batch
 * that also holds what was written since, so the batch starts at a sequence number the broker has
 * already used for fewer messages (seen after Kafka was SIGKILLed under load: a send written and
 * never answered, then every later send refused, and no confirmed top-up credited). This pauses
 * the broker every other test shares, so it runs in the fault project, alone.
 */
const logger = createLogger('kit-test', 'silent');
const dbName = uniqueName('raseed_kit_relay_fault_');
const redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
let conn: Connection;
let paused = false;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  conn = await mongoose.createConnection(MONGO_URL, { dbName }).asPromise();
});

afterAll(async () => {
  if (paused) await resumeBroker();
  await redis.quit();
  await conn.close();
  await dropDatabase(dbName);
});

/** A client whose requests time out after 1.5 s and are tried once more, so a stall of seconds outlasts them. */
function impatient(): Kafka {
  return new Kafka({
    clientId: 'kit-relay-fault',
    brokers: KAFKA_BROKERS,
    requestTimeout: 1_500,
    connectionTimeout: 1_000,
    retry: { retries: 1, initialRetryTime: 200, maxRetryTime: 500 },
    logLevel: logLevel.NOTHING,
  });
}

async function pauseBroker(): Promise<void> {
  await infra('pause', 'kafka');
  paused = true;
}

async function resumeBroker(): Promise<void> {
  await infra('resume', 'kafka');
  paused = false;
}

describe('when the broker stalls', () => {
  it('the relay sends every event once it is back, though the broker wrote a send it did not answer in time', async () => {
    const outbox = new Outbox(conn);
    const relay = new OutboxRelay(
      impatient(),
      outbox,
      logger,
      { pollMs: 100, topicPrefix: TEST_TOPIC_PREFIX },
      redis,
    );
    relay.start();
    try {
      const user = uniqueName('u');
      const written: EventEnvelope[] = [registeredEvent(user)];
      await outbox.add(written[0]!);
      await readEvents('user.registered', (e) => e.id === written[0]!.id);

      await pauseBroker();
      // Sent to the paused broker, which reads it when it resumes.
      const first = [registeredEvent(user), registeredEvent(user)];
      await outbox.add(...first);
      await pause(1_000);
      // Written while the relay waits to try again: the next batch is larger than the first.
      const second = [registeredEvent(user), registeredEvent(user), registeredEvent(user)];
      await outbox.add(...second);
      await pause(5_000);
      await resumeBroker();
      written.push(...first, ...second);

      // And something written well after the broker is back.
      await pause(3_000);
      const later = registeredEvent(user);
      await outbox.add(later);
      written.push(later);

      const wanted = new Set(written.map((e) => e.id));
      const arrived = await readEvents('user.registered', (e) => wanted.has(e.id), {
        count: written.length,
        timeoutMs: 45_000,
      });
      expect([...new Set(arrived.map((e) => e.id))].sort()).toEqual([...wanted].sort());
      expect(await outbox.records.countDocuments()).toBe(0);
    } finally {
      await relay.stop();
    }
  }, 120_000);

  it('a group handles the events sent once it is back', async () => {
    const seen = new Set<string>();
    const stop = await startConsumer({
      kafka: impatient(),
      groupId: uniqueName('kit-relay-fault-'),
      mongo: conn,
      logger,
      topicPrefix: TEST_TOPIC_PREFIX,
      handlers: { 'user.registered': withoutMarker(async (event) => void seen.add(event.id)) },
    });
    try {
      const before = registeredEvent(uniqueName('u'));
      await republishEvents('user.registered', before);
      await eventually(async () => seen.has(before.id) || undefined, {
        timeoutMs: 30_000,
        what: 'the first event',
      });
      // Longer than the group's requests wait for an answer: they time out meanwhile.
      await pauseBroker();
      await pause(8_000);
      await resumeBroker();
      const after = [registeredEvent(uniqueName('u')), registeredEvent(uniqueName('u'))];
      await republishEvents('user.registered', ...after);
      await eventually(async () => after.every((e) => seen.has(e.id)) || undefined, {
        timeoutMs: 60_000,
        what: 'the events sent after the stall to be handled',
      });
    } finally {
      await stop();
    }
  }, 120_000);
});
