import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import pRetry from 'p-retry';
import mongoose from 'mongoose';
import type { EventData, EventEnvelope, EventType } from '../src/events';
import { createEvent, parseEvent } from '../src/events';
import { loadConfig } from '../src/config';
import { ensureTopics } from '../src/kafka';
import { objectClient, ObjectStore } from '../src/storage';

export const MONGO_URL = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017';
export const KAFKA_BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
export const MAIL_API = process.env.MAIL_API ?? 'http://127.0.0.1:1080';

/**
 * Each test file publishes and reads on topics of its own: a store running on this machine
 * and the other test files never see its events, and its consumers may read from the start.
 * The run's topics are deleted when it ends (infra/test/global-teardown.ts).
 */
export const TEST_RUN = process.env.RASEED_TEST_RUN ?? 'adhoc';
export const TEST_TOPIC_PREFIX = `test-${TEST_RUN}-${randomUUID().slice(0, 8)}.`;

/** Each test file's bucket is named after the run, so the teardown deletes the run's buckets. */
const TEST_BUCKET_PREFIX = `${process.env.S3_BUCKET ?? 'raseed'}-test-`;

/** Where the infrastructure is, when the run was given it (the jest global setup's containers). */
const INFRASTRUCTURE = [
  'MONGO_URL',
  'KAFKA_BROKERS',
  'REDIS_URL',
  'CACHE_REDIS_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'S3_BUCKET',
  'SMTP_URL',
].filter((name) => process.env[name]);

/**
 * An environment for one test file: its own database and bucket, quiet logs, and a fast fallback
 * poll of the outbox (its relay is woken by writes; records a test inserts itself are found by
 * the poll).
 */
export function testEnv(service: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(INFRASTRUCTURE.map((name) => [name, process.env[name]])),
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    MONGO_DB: `raseed_${service}_test_${randomUUID().slice(0, 8)}`,
    // A bucket of its own too, so what one file stores (or refuses to) is not mixed with another's.
    S3_BUCKET: `${TEST_BUCKET_PREFIX}${TEST_RUN}-${randomUUID().slice(0, 8)}`,
    OUTBOX_POLL_MS: '250',
    KAFKA_PARTITIONS: '1',
    KAFKA_TOPIC_PREFIX: TEST_TOPIC_PREFIX,
    KAFKA_GROUP: `${service}-test-${randomUUID().slice(0, 8)}`,
    QUEUE_PREFIX: `raseed-test-${randomUUID().slice(0, 8)}`,
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    ...extra,
  };
}

/** Creates a topic this file's services have not made yet: subscribing to one still being made fails. */
async function makeTopic(kafka: Kafka, topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, [topic], 1);
  } finally {
    await admin.disconnect();
  }
}

/** Deletes the topics whose names start with `prefix` (a test run's or a bench's). */
export async function deleteTopics(prefix: string): Promise<number> {
  const admin = new Kafka({
    clientId: 'raseed-tests',
    brokers: KAFKA_BROKERS,
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    for (let i = 0; i < topics.length; i += 100)
      await admin.deleteTopics({ topics: topics.slice(i, i + 100), timeout: 30_000 });
    return topics.length;
  } finally {
    await admin.disconnect();
  }
}

/**
 * Empties and deletes the run's buckets, and any test bucket made over a day ago (by a run cut
 * off before its teardown): left behind, every one of them is walked again and again by the
 * object store's background scanner, which then takes the CPU the store's work should have.
 */
export async function deleteTestBuckets(run: string): Promise<number> {
  // The object store's address as every test file's services read it (defaults included).
  const address = loadConfig({}, testEnv('teardown'));
  const dayAgo = Date.now() - 24 * 3600_000;
  const buckets = (await objectClient(address).listBuckets()).filter(
    ({ name, creationDate }) =>
      name.startsWith(TEST_BUCKET_PREFIX) &&
      (name.startsWith(`${TEST_BUCKET_PREFIX}${run}-`) || creationDate.getTime() < dayAgo),
  );
  for (const { name } of buckets) await new ObjectStore(address, name).drop();
  return buckets.length;
}

export async function dropDatabase(name: string): Promise<void> {
  const conn = await mongoose.createConnection(MONGO_URL, { dbName: name }).asPromise();
  await conn.dropDatabase();
  await conn.close();
}

/** Opens the database of a running service, to check what it stored. */
export function openDatabase(name: string) {
  return mongoose.createConnection(MONGO_URL, { dbName: name }).asPromise();
}

/**
 * Reads a topic from its beginning and collects the events that match, until `count`
 * have arrived and then `settleMs` more have passed with nothing new (to see duplicates).
 */
export async function readEvents<T extends EventType>(
  type: T,
  match: (event: EventEnvelope<T>) => boolean,
  { count = 1, timeoutMs = 30_000, settleMs = 1500 } = {},
): Promise<EventEnvelope<T>[]> {
  const kafka = new Kafka({ clientId: 'raseed-tests', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `tests-${randomUUID()}` });
  const found: EventEnvelope<T>[] = [];
  let lastArrival = Date.now();
  await makeTopic(kafka, TEST_TOPIC_PREFIX + type);
  await consumer.connect();
  try {
    await pRetry(() => consumer.subscribe({ topic: TEST_TOPIC_PREFIX + type, fromBeginning: true }), {
      retries: 5,
      minTimeout: 200,
    });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const event = parseEvent(message.value?.toString() ?? '') as EventEnvelope<T> | null;
        if (event && event.type === type && match(event)) {
          found.push(event);
          lastArrival = Date.now();
        }
      },
    });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (found.length >= count && Date.now() - lastArrival >= settleMs) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return found;
  } finally {
    await consumer.disconnect();
  }
}

/** Publishes events as another service would (its relay's envelope, topic and key), for consumers under test. */
export async function publishEvents<T extends EventType>(
  type: T,
  ...items: { key: string; data: EventData<T> }[]
): Promise<EventEnvelope<T>[]> {
  const events = items.map(({ key, data }) => createEvent('tests', type, key, data));
  await sendEvents(type, events);
  return events;
}

/** A user.registered event of a new user `userId`, as auth would send it. */
export function registeredEvent(userId: string): EventEnvelope<'user.registered'> {
  return createEvent('kit-test', 'user.registered', userId, {
    userId,
    username: userId,
    email: `${uniqueName('user')}@example.com`,
    phone: '+961 70 000000',
    role: 'user',
    createdAt: new Date().toISOString(),
  });
}

/** Sends events once more as they were sent (the same ids): a redelivery, as a relay's retry makes. */
export async function republishEvents<T extends EventType>(
  type: T,
  ...events: EventEnvelope<T>[]
): Promise<void> {
  await sendEvents(type, events);
}

async function sendEvents<T extends EventType>(type: T, events: EventEnvelope<T>[]): Promise<void> {
  const kafka = new Kafka({ clientId: 'raseed-tests', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING });
  await makeTopic(kafka, TEST_TOPIC_PREFIX + type);
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  try {
    await producer.send({
      topic: TEST_TOPIC_PREFIX + type,
      acks: -1,
      messages: events.map((e) => ({ key: e.key, value: JSON.stringify(e), headers: { 'event-id': e.id } })),
    });
  } finally {
    await producer.disconnect();
  }
}

/**
 * Waits until a consumer group has handled everything sent on an event's topic so far (its
 * committed offsets reach the topic's end): for handlers that leave no marker to wait on.
 */
export async function caughtUp(groupId: string, type: EventType): Promise<void> {
  const kafka = new Kafka({ clientId: 'raseed-tests', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING });
  const topic = TEST_TOPIC_PREFIX + type;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    await eventually(
      async () => {
        const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
        const at = (partition: number) =>
          Number(committed?.partitions.find((p) => p.partition === partition)?.offset ?? -1);
        return ends.every((end) => Number(end.high) === 0 || at(end.partition) >= Number(end.high))
          ? true
          : undefined;
      },
      { what: `${groupId} caught up on ${type}` },
    );
  } finally {
    await admin.disconnect();
  }
}

/** Polls until `check` answers something other than undefined, or fails after the timeout. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  { timeoutMs = 20_000, what = 'the expected state' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} was not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface CaughtEmail {
  id: string;
  subject: string;
  text: string;
  html: string;
  to: { address: string }[];
  replyTo?: { address: string }[];
}

/** Waits for an e-mail to the address to reach the mail catcher (MailDev's REST API). */
export async function waitForEmail(address: string, timeoutMs = 20_000, after = 0): Promise<CaughtEmail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${MAIL_API}/email`);
    const all = (await res.json()) as CaughtEmail[];
    const mine = all.filter((m) => m.to.some((t) => t.address.toLowerCase() === address.toLowerCase()));
    if (mine.length > after) return mine;
    if (Date.now() > deadline) throw new Error(`no e-mail to ${address} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const uniqueName = (prefix: string) => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 10)}`;

/**
 * Runs infra/infra.sh, for tests that stop and start a shared server. The test's own process
 * (often hosting the services) goes on meanwhile, as it would through a real outage: a stop or
 * a start that froze it would hand its clients the whole outage at once when it resumed.
 */
export async function infra(...args: string[]): Promise<void> {
  const child = spawn('bash', [path.resolve(__dirname, '../../../infra/infra.sh'), ...args], {
    stdio: 'inherit',
  });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`infra.sh ${args.join(' ')} failed (${signal ?? `exit code ${code}`})`);
}

const ROOT = path.resolve(__dirname, '../../..');

/**
 * Starts a service as its own process (main: its main.ts, from the repository root), so a
 * test can kill it without warning; answers once it is ready on `port`. Node runs it itself
 * with tsx as a loader: the tsx command would run it in a child of its own, which a SIGKILL
 * of the command would leave running.
 */
export async function spawnService(
  main: string,
  env: NodeJS.ProcessEnv,
  port: number,
): Promise<ChildProcess> {
  const url = `http://127.0.0.1:${port}`;
  const taken = await fetch(`${url}/healthz`).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`something already listens on ${url}: this test needs the port to itself`);
  // Its warnings and errors go to a file, named in any failure, to show why it did not come up.
  const logFile = path.join(
    os.tmpdir(),
    `raseed-${path.basename(path.dirname(path.dirname(main)))}-${port}.log`,
  );
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, main)], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  await eventually(
    () =>
      fetch(`${url}/readyz`).then(
        (r) => (r.ok ? true : undefined),
        () => undefined,
      ),
    { timeoutMs: 60_000, what: `${main} to start (its log: ${logFile})` },
  );
  // Ready means this process answered, not another one left on the port.
  if (child.exitCode !== null) throw new Error(`${main} exited with ${child.exitCode} (its log: ${logFile})`);
  return child;
}
