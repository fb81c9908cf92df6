import {
  createEvent,
  createKafka,
  createLogger,
  DocumentLocks,
  OutboxRelay,
  redisConnection,
  outboxPlugin,
  withEvents,
  type EventEnvelope,
} from '@raseed/kit';
import {
  dropDatabase,
  KAFKA_BROKERS,
  MONGO_URL,
  readEvents,
  TEST_TOPIC_PREFIX,
  uniqueName,
} from '@raseed/kit/testing';
import mongoose, { Schema, type Connection, type Model } from 'mongoose';

const logger = createLogger('kit-test', 'silent');
interface Customer {
  _id: string;
  email: string;
}
const customerSchema = new Schema<Customer>({ _id: String, email: String }, { versionKey: false });
customerSchema.plugin(outboxPlugin);

const dbName = uniqueName('raseed_kit_outbox_test_');
let conn: Connection;
let customers: Model<Customer>;
let relay: OutboxRelay;
const redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const locks = new DocumentLocks(redis);

beforeAll(async () => {
  conn = await mongoose.createConnection(MONGO_URL, { dbName }).asPromise();
  customers = conn.model<Customer>('Customer', customerSchema);
  relay = new OutboxRelay(createKafka('kit-test', KAFKA_BROKERS, logger), locks, logger, {
    pollMs: 50,
    topicPrefix: TEST_TOPIC_PREFIX,
  });
  relay.watch(customers);
  relay.start();
});

afterAll(async () => {
  await relay.stop();
  await redis.quit();
  await conn.close();
  await dropDatabase(dbName);
});

function registered(userId: string): EventEnvelope<'user.registered'> {
  const email = `${uniqueName('outbox')}@example.com`;
  return createEvent('kit-test', 'user.registered', userId, {
    userId,
    username: userId,
    email,
    phone: '+961 70 000000',
    role: 'user',
    createdAt: new Date().toISOString(),
  });
}

/** Records a change and its event in one single-document write, as the only writer of the document, as services do. */
async function recordRegistration(userId: string): Promise<EventEnvelope<'user.registered'>> {
  const event = registered(userId);
  await locks.run(customers, userId, () =>
    customers.updateOne({ _id: userId }, withEvents({ $set: { email: event.data.email } }, event), {
      upsert: true,
    }),
  );
  return event;
}

async function pendingOutboxEntries(): Promise<number> {
  const docs = await conn.collection('customers').find({}).toArray();
  return docs.reduce((n, doc) => n + ((doc.outbox as unknown[] | undefined)?.length ?? 0), 0);
}

async function expectOutboxesEmptied(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await pendingOutboxEntries()) > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(await pendingOutboxEntries()).toBe(0);
}

/** What went wrong between the events written and those read from Kafka, if anything. */
function delivery(written: EventEnvelope[], arrived: EventEnvelope[]) {
  const seen = arrived.map((e) => e.id);
  return {
    missing: written.filter((e) => !seen.includes(e.id)).length,
    duplicated: seen.filter((id, i) => seen.indexOf(id) !== i).length,
  };
}

describe('the outbox relay', () => {
  it('publishes each recorded event once, keyed by user, and empties the outbox', async () => {
    const written = [await recordRegistration(uniqueName('u')), await recordRegistration(uniqueName('u'))];
    const wanted = new Set(written.map((e) => e.id));

    const arrived = await readEvents('user.registered', (e) => wanted.has(e.id), { count: 2 });
    expect(delivery(written, arrived)).toEqual({ missing: 0, duplicated: 0 });
    expect(arrived.find((e) => e.id === written[0]?.id)).toEqual(written[0]);
    await expectOutboxesEmptied();
    expect(await customers.findById(written[0]?.key).lean()).toMatchObject({ email: written[0]?.data.email });
  });

  it('loses nothing appended while it drains: a burst arrives exactly once, in order per user', async () => {
    const users = [uniqueName('u'), uniqueName('u'), uniqueName('u')];
    // Each user's events are appended one after another while the relay publishes and pops.
    const written = await Promise.all(
      users.map(async (user) => {
        const events: EventEnvelope<'user.registered'>[] = [];
        for (let i = 0; i < 12; i++) events.push(await recordRegistration(user));
        return events;
      }),
    );
    const all = written.flat();
    const wanted = new Set(all.map((e) => e.id));

    const arrived = await readEvents('user.registered', (e) => wanted.has(e.id), {
      count: all.length,
      timeoutMs: 20_000,
    });
    expect(delivery(all, arrived)).toEqual({ missing: 0, duplicated: 0 });
    for (const [i, user] of users.entries()) {
      const order = arrived.filter((e) => e.key === user).map((e) => e.id);
      expect(order).toEqual(written[i]?.map((e) => e.id));
    }
    await expectOutboxesEmptied();
  });
});
