import {
  carriesEvents,
  createKafka,
  createLogger,
  isDuplicateKey,
  redisConnection,
  Outbox,
  OutboxRelay,
  type EventEnvelope,
} from '@raseed/kit';
import {
  dropDatabase,
  KAFKA_BROKERS,
  MONGO_URL,
  readEvents,
  TEST_TOPIC_PREFIX,
  registeredEvent,
  uniqueName,
} from '@raseed/kit/testing';
import mongoose, { Schema, type Connection, type Model } from 'mongoose';

const logger = createLogger('kit-test', 'silent');

/** An insert-only record that decides something once and carries its events, like a decision. */
interface Signup {
  _id: string;
  email: string;
  note?: string;
}
const signupSchema = new Schema<Signup>({ _id: String, email: String, note: String }, { versionKey: false });
signupSchema.plugin(carriesEvents);

const dbName = uniqueName('raseed_kit_outbox_test_');
let conn: Connection;
let signups: Model<Signup>;
let outbox: Outbox;
let relay: OutboxRelay;
const redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

beforeAll(async () => {
  conn = await mongoose.createConnection(MONGO_URL, { dbName }).asPromise();
  signups = conn.model<Signup>('Signup', signupSchema);
  await signups.init();
  outbox = new Outbox(conn);
  relay = new OutboxRelay(
    createKafka('kit-test', KAFKA_BROKERS, logger),
    outbox,
    logger,
    {
      pollMs: 50,
      topicPrefix: TEST_TOPIC_PREFIX,
    },
    redis,
  );
  relay.start();
});

afterAll(async () => {
  await relay.stop();
  await redis.quit();
  await conn.close();
  await dropDatabase(dbName);
});

const pending = () => outbox.records.countDocuments();

async function expectOutboxEmptied(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await pending()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(await pending()).toBe(0);
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
  it('publishes each event record once, keyed by user, and empties the outbox', async () => {
    const written = [registeredEvent(uniqueName('u')), registeredEvent(uniqueName('u'))];
    await outbox.add(...written);
    // Recording the same event again (a retried request) adds nothing.
    await outbox.add(written[0]!);
    const wanted = new Set(written.map((e) => e.id));

    const arrived = await readEvents('user.registered', (e) => wanted.has(e.id), { count: 2 });
    expect(delivery(written, arrived)).toEqual({ missing: 0, duplicated: 0 });
    expect(arrived.find((e) => e.id === written[0]?.id)).toEqual(written[0]);
    await expectOutboxEmptied();
  });

  it('sends a burst exactly once, in order per user, while writers keep adding', async () => {
    const users = [uniqueName('u'), uniqueName('u'), uniqueName('u')];
    const written = await Promise.all(
      users.map(async (user) => {
        const events: EventEnvelope<'user.registered'>[] = [];
        for (let i = 0; i < 12; i++) {
          const event = registeredEvent(user);
          await outbox.add(event);
          events.push(event);
        }
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
      expect(arrived.filter((e) => e.key === user).map((e) => e.id)).toEqual(written[i]?.map((e) => e.id));
    }
    await expectOutboxEmptied();
  });

  it("publishes a record's events once it exists, however long its writer stalled after the pointer", async () => {
    const id = uniqueName('s');
    const event = registeredEvent(id);
    // The writer dies (or stalls) between its pointer and its record: nothing is sent yet.
    await outbox.records.create({
      _id: `signups:${id}`,
      order: new mongoose.Types.ObjectId(),
      carrier: { collection: 'signups', filter: { _id: id } },
    });
    const other = registeredEvent(uniqueName('u'));
    await outbox.add(other);
    // A pointer waiting for its record holds up the rest for a moment only.
    expect(await readEvents('user.registered', (e) => e.id === other.id, { count: 1 })).toHaveLength(1);
    expect(await readEvents('user.registered', (e) => e.id === event.id, { timeoutMs: 1500 })).toHaveLength(
      0,
    );

    // It comes back and inserts the record (the pointer is there already).
    await outbox.create(signups, { _id: id, email: 'a@b.c' }, [event], { _id: id });
    expect(await readEvents('user.registered', (e) => e.id === event.id, { count: 1 })).toEqual([event]);
    await expectOutboxEmptied();
  });

  it('sends a record’s events before those recorded after its pointer, while its writer finishes', async () => {
    const user = uniqueName('u');
    const [first, second] = [registeredEvent(user), registeredEvent(user)];
    // The writer has made its pointer and is about to insert its record...
    await outbox.records.create({
      _id: `signups:${user}`,
      order: new mongoose.Types.ObjectId(),
      carrier: { collection: 'signups', filter: { _id: user } },
    });
    // ...when a later event of the same user is recorded, and the relay polls a few times.
    await outbox.add(second);
    await new Promise((r) => setTimeout(r, 700));
    await outbox.create(signups, { _id: user, email: 'a@b.c' }, [first], { _id: user });

    const arrived = await readEvents('user.registered', (e) => e.key === user, { count: 2 });
    expect(arrived.map((e) => e.id)).toEqual([first.id, second.id]);
    await expectOutboxEmptied();
  });

  it('sends a pointer set aside for a recheck in its place once a later writer here fills it', async () => {
    const user = uniqueName('u');
    const [first, second] = [registeredEvent(user), registeredEvent(user)];
    // A pointer older than the relay holds records back for: its writer stopped, so the relay
    // sets it aside for a recheck (after 500 ms) at its next look (every 50 ms here).
    const filled = uniqueName('s');
    await outbox.records.create({
      _id: `signups:${filled}`,
      order: mongoose.Types.ObjectId.createFromTime(Math.floor(Date.now() / 1000) - 10),
      carrier: { collection: 'signups', filter: { _id: filled } },
    });
    await new Promise((r) => setTimeout(r, 150));
    // Before the recheck, a later writer of the same key fills it (reusing the pointer), and
    // the same user's next record follows.
    await outbox.create(signups, { _id: filled, email: 'a@b.c' }, [first], { _id: filled });
    const next = uniqueName('s');
    await outbox.create(signups, { _id: next, email: 'a@b.c' }, [second], { _id: next });

    const arrived = await readEvents('user.registered', (e) => e.key === user, { count: 2 });
    expect(arrived.map((e) => e.id)).toEqual([first.id, second.id]);
    await expectOutboxEmptied();
  });

  it('lets exactly one of 100 racing writers decide, and sends only the winner’s event', async () => {
    const id = uniqueName('s');
    const attempts = Array.from({ length: 100 }, () => registeredEvent(id));
    const outcomes = await Promise.all(
      attempts.map((event) => outbox.insertOnce(signups, { _id: id, email: event.data.email }, [event])),
    );
    const winners = outcomes.filter((o) => o.first);
    expect(winners).toHaveLength(1);
    const winner = attempts.find((e) => e.data.email === winners[0]!.record.email)!;
    // Every loser answers the winner's record.
    expect(new Set(outcomes.map((o) => o.record.email))).toEqual(new Set([winner.data.email]));

    const ids = new Set(attempts.map((e) => e.id));
    const arrived = await readEvents('user.registered', (e) => ids.has(e.id), { timeoutMs: 4000 });
    expect(arrived.map((e) => e.id)).toEqual([winner.id]);
    await expectOutboxEmptied();
  });

  it('sends nothing again for a pointer a losing writer makes after the send, and remembers the send for an hour', async () => {
    const id = uniqueName('s');
    const event = registeredEvent(id);
    const record = { _id: id, email: event.data.email };
    expect((await outbox.insertOnce(signups, record, [event], { lookFirst: false })).first).toBe(true);
    await readEvents('user.registered', (e) => e.id === event.id, { timeoutMs: 4000, settleMs: 0 });
    await expectOutboxEmptied();

    // A writer that lost the race without looking first leaves a pointer to the winner's record.
    const late = await outbox.insertOnce(signups, record, [registeredEvent(id)], { lookFirst: false });
    expect(late.first).toBe(false);
    await expectOutboxEmptied();
    const arrived = await readEvents('user.registered', (e) => e.data.userId === id, { timeoutMs: 4000 });
    expect(arrived.map((e) => e.id)).toEqual([event.id]);
    const remembered = await redis.ttl(`raseed:outbox:sent:${TEST_TOPIC_PREFIX}${event.id}`);
    expect(remembered).toBeGreaterThan(3_500);
    expect(remembered).toBeLessThanOrEqual(3_600);
  });

  it('sends a record’s events once when the delete after their send failed: the next look asks Redis', async () => {
    const failedDelete = jest
      .spyOn(outbox.records, 'deleteMany')
      .mockRejectedValueOnce(new Error('store away'));
    try {
      const id = uniqueName('s');
      const event = registeredEvent(id);
      await outbox.insertOnce(signups, { _id: id, email: event.data.email }, [event], { lookFirst: false });
      await expectOutboxEmptied();
      expect(failedDelete.mock.calls.length).toBeGreaterThanOrEqual(2);
      const arrived = await readEvents('user.registered', (e) => e.data.userId === id, { timeoutMs: 4000 });
      expect(arrived.map((e) => e.id)).toEqual([event.id]);
    } finally {
      failedDelete.mockRestore();
    }
  });

  it('loses no event when stale copies of the records are written back whole while it drains', async () => {
    // What a writer whose lock expired does on the local store: read, wait, write the whole copy back.
    const ids = Array.from({ length: 30 }, () => uniqueName('s'));
    const events = ids.map((id) => registeredEvent(id));
    await Promise.all(
      ids.map((id, i) => outbox.create(signups, { _id: id, email: 'x@y.z' }, [events[i]!], { _id: id })),
    );
    // The store reads the whole document, its events included, before it writes it back.
    const stale = await signups
      .find({ _id: { $in: ids } })
      .select('+events')
      .lean<Signup[]>();
    const rewrites = Promise.all(
      stale.map(async (copy, i) => {
        for (let round = 0; round < 5; round++) {
          await new Promise((r) => setTimeout(r, 20 * ((i % 5) + 1)));
          await signups.replaceOne({ _id: copy._id }, { ...copy, note: `round ${round}` });
        }
      }),
    );
    const wanted = new Set(events.map((e) => e.id));
    const arrived = await readEvents('user.registered', (e) => wanted.has(e.id), {
      count: events.length,
      timeoutMs: 20_000,
    });
    await rewrites;
    expect(delivery(events, arrived)).toEqual({ missing: 0, duplicated: 0 });
    await expectOutboxEmptied();
  });

  it('throws a duplicate key of the record itself, for the caller to read', async () => {
    const id = uniqueName('s');
    await outbox.create(signups, { _id: id, email: 'a@b.c' }, [registeredEvent(id)], { _id: id });
    const second = await outbox
      .create(signups, { _id: id, email: 'd@e.f' }, [registeredEvent(id)], { _id: id })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(isDuplicateKey(second)).toBe(true);
  });

  it('looks again at once only while batches come full or a write woke it, else at its next poll', async () => {
    const ownDb = uniqueName('raseed_kit_outbox_quiet_');
    const ownConn = await mongoose.createConnection(MONGO_URL, { dbName: ownDb }).asPromise();
    const quiet = new Outbox(ownConn);
    const quietRelay = new OutboxRelay(
      createKafka('kit-test-quiet', KAFKA_BROKERS, logger),
      quiet,
      logger,
      // A poll far beyond the test: whatever the relay reads, a write woke it to.
      { pollMs: 600_000, batchSize: 3, topicPrefix: TEST_TOPIC_PREFIX },
      redis,
    );
    quietRelay.start();
    try {
      // Its first look at start, on an empty outbox, then it waits.
      await new Promise((r) => setTimeout(r, 1_000));
      const looks = jest.spyOn(quiet.records, 'find');
      const user = uniqueName('u');
      const written = Array.from({ length: 7 }, () => registeredEvent(user));
      await quiet.add(...written);
      const arrived = await readEvents('user.registered', (e) => e.key === user, { count: 7 });
      expect(delivery(written, arrived)).toEqual({ missing: 0, duplicated: 0 });
      expect(arrived.map((e) => e.id)).toEqual(written.map((e) => e.id));
      await new Promise((r) => setTimeout(r, 1_000));
      // Three batches (3, 3 and 1): two full, so two looks straight after; the third took the rest.
      expect(looks).toHaveBeenCalledTimes(3);
      expect(await quiet.records.countDocuments()).toBe(0);
    } finally {
      await quietRelay.stop();
      await ownConn.close();
      await dropDatabase(ownDb);
    }
  });

  // Last: it stops the file's relay.
  it('sends through one relay at a time when another instance shares the outbox, which takes over when the first stops', async () => {
    const other = new OutboxRelay(
      createKafka('kit-test-other', KAFKA_BROKERS, logger),
      outbox,
      logger,
      { pollMs: 50, topicPrefix: TEST_TOPIC_PREFIX },
      redis,
    );
    other.start();
    try {
      const user = uniqueName('u');
      const burst: EventEnvelope[] = [];
      for (let i = 0; i < 60; i++) {
        const event = registeredEvent(user);
        await outbox.add(event);
        burst.push(event);
      }
      const sent = await readEvents('user.registered', (e) => e.key === user, { count: burst.length });
      expect(delivery(burst, sent)).toEqual({ missing: 0, duplicated: 0 });
      expect(sent.map((e) => e.id)).toEqual(burst.map((e) => e.id));

      await relay.stop();
      const after = [registeredEvent(user), registeredEvent(user)];
      await outbox.add(...after);
      const later = await readEvents('user.registered', (e) => e.key === user, {
        count: burst.length + after.length,
      });
      expect(delivery([...burst, ...after], later)).toEqual({ missing: 0, duplicated: 0 });
      await expectOutboxEmptied();
    } finally {
      await other.stop();
    }
  });
});
