import { randomUUID } from 'node:crypto';
import type IORedis from 'ioredis';
import type { Kafka, Producer } from 'kafkajs';
import { Schema, Types, type Connection, type Model } from 'mongoose';
import { within } from './deadline';
import { EVENT_TYPES, type EventEnvelope } from './events';
import { ensureTopics } from './kafka';
import { carriedContext, openSpan, SpanKind } from './trace-context';
import type { Logger } from './logger';
import { grouped } from './grouped';
import { keepRecent } from './memo';
import { insertNew, insertOnce, modelOf, writeFailures } from './mongo';

/**
 * Events are born inside inserts (ARCHITECTURE rule 11). On the local store an update is a
 * read-modify-write of the whole document, so a writer whose lock expired can write back an
 * old copy and erase whatever else the document carried. So no document that carries unsent
 * events is ever rewritten:
 *
 * - A record that decides a change once (a ledger entry, a decision, an order's fate) carries
 *   its events in its `events` field, written by its insert and never changed (`carriesEvents`).
 *   Just before it, `Outbox.create` inserts a pointer to it into the service's `outbox`
 *   collection, keyed by the record's unique key: whatever stops the writer after the pointer,
 *   the relay finds the record once it exists (a pointer whose record never appears, because its
 *   writer lost the race for the key or died first, is asked about again later and costs nothing).
 * - A change made by an update (a product edited, a discount set) is announced by an event record
 *   inserted into `outbox` before the update (`Outbox.add`): an update cut off after it leaves an
 *   event that the caller's retry makes true, never a change that nobody hears of.
 *
 * The relay keeps its progress apart from the data it relays: `outbox` holds only what is still
 * to be sent, and the relay deletes a record once its events are on Kafka. Nothing else writes
 * that collection but inserts, so no lock is needed. A relay stopped between the send and the
 * delete sends the record again, and so may a pointer made again by a writer that lost its race
 * after the winner's was sent; the relay remembers in Redis for an hour which events it sent to
 * skip most of these (SENT_KEPT_SECONDS), and consumers drop any duplicate that gets through by
 * event id. With
 * several instances of a service, one relay sends at a time (LEASE_MS).
 *
 * The relay does not poll the store to learn of new events: every write through the Outbox wakes
 * this process's relay at once, and when another instance's relay holds the lease, a message on
 * a Redis channel wakes that one. It still looks every pollMs (a second by default) for what no
 * wake-up told of: records left by a writer that died, pointers asked about again later.
 */
export function carriesEvents(schema: Schema): void {
  schema.add({ events: { type: [Schema.Types.Mixed], default: undefined, select: false } });
}

interface OutboxRecord {
  _id: string;
  /** Insertion order within a process, so one user's events leave in the order they were made. */
  order: Types.ObjectId;
  event?: EventEnvelope;
  carrier?: { collection: string; filter: Record<string, unknown> };
}

const recordSchema = new Schema(
  {
    _id: String,
    order: { type: Schema.Types.ObjectId, required: true },
    event: { type: Schema.Types.Mixed },
    carrier: { type: Schema.Types.Mixed },
  },
  { versionKey: false },
);

/** What createInOrder answers. */
export interface InsertedInOrder {
  inserted: number;
  failure?: { err: unknown; duplicate: boolean };
}

/** Outbox records are built whole here: inserted without mongoose casting each into a document. */
const LEAN = { lean: true };

/** Records of this process's writers, landed but not yet sent, that the relay need not read again. */
const LANDED_KEPT = 10_000;

/** A service's outbox: what its relay still has to send (see carriesEvents). */
export class Outbox {
  readonly records: Model<OutboxRecord>;
  /**
   * The events of records this process inserted, by their pointer's id: the relay of this process
   * sends them without reading the record back. A relay elsewhere (or after a restart) reads it.
   */
  readonly landed = new Map<string, EventEnvelope[]>();
  /** Called once a write has recorded events: this process's relay wakes (see OutboxRelay.nudge). */
  onRecorded: () => void = () => undefined;

  constructor(readonly conn: Connection) {
    this.records = modelOf<OutboxRecord>(conn, 'OutboxRecord', recordSchema, 'outbox');
  }

  /** Announces a change made by an update: call before the update. Safe to repeat (keyed by event id). */
  async add(...events: EventEnvelope[]): Promise<void> {
    await insertNew(
      this.records,
      events.map((event) => ({ _id: event.id, order: new Types.ObjectId(), event })),
      LEAN,
    );
    if (events.length) this.onRecorded();
  }

  /**
   * Inserts a record that carries its events, after a pointer to it under `key` (the record's
   * unique key, as equality filters). A duplicate key of the record itself is thrown, for the
   * caller to read as "someone decided first".
   */
  async create<T>(
    model: Model<T>,
    record: Partial<T>,
    events: EventEnvelope[],
    key: Record<string, string | number | Types.ObjectId>,
  ) {
    if (!events.length) return model.create({ ...record, events });
    const carrier = pointer(model.collection.collectionName, key);
    await this.point([carrier]);
    const created = await model.create({ ...record, events });
    this.land(carrier._id, events);
    this.onRecorded();
    return created;
  }

  /**
   * Inserts records carrying events in two calls however many they are (their pointers, under
   * each record's unique `key`, then the records), as `create` does one. The records go in as
   * listed and stop at the first that fails; answers how many went in, and why the next did not
   * (`duplicate`: someone decided it first; no failure: another writer's record failed before
   * them in the same call, so they are to be tried again). A failure that names no record is
   * thrown: none of them is known to be in. Writers that come while one such insert is on its
   * way go in together next (see grouped), their pointers too. The records are inserted as they
   * are built, whole and typed, without mongoose making a document of each (fields left
   * undefined are left out).
   */
  async createInOrder<T>(
    model: Model<T>,
    items: { record: Partial<T>; events: EventEnvelope[]; key: Record<string, string | number> }[],
  ): Promise<InsertedInOrder> {
    const carriers = await this.pointTo(model, items);
    const result = await this.inOrder(model)(items.map(({ record, events }) => ({ ...record, events })));
    carriers
      .slice(0, result.inserted)
      .forEach((carrier, i) => carrier && this.land(carrier._id, items[i]!.events));
    if (carriers.some(Boolean)) this.onRecorded();
    return result;
  }

  /**
   * Inserts the pointers of the items that carry events (see point), each under its record's
   * unique key; answers each item's pointer, or null for one that carries none.
   */
  private async pointTo<T>(
    model: Model<T>,
    items: { events: EventEnvelope[]; key: Record<string, string | number | Types.ObjectId> }[],
  ) {
    const collection = model.collection.collectionName;
    const carriers = items.map((i) => (i.events.length ? pointer(collection, i.key) : null));
    const pointers = carriers.filter((c) => c !== null);
    if (pointers.length) await this.point(pointers);
    return carriers;
  }

  /** Pointers, inserted with those of the writers that came meanwhile. */
  private readonly point = grouped(async (sets: OutboxRecord[][]) => {
    await insertNew(this.records, sets.flat(), LEAN);
    return sets.map(() => undefined);
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any model's records can be inserted
  private readonly ordered = new Map<Model<any>, (docs: object[]) => Promise<InsertedInOrder>>();

  /** Inserts lists of records as one ordered list, with the lists of the writers that came meanwhile. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any model's records can be inserted
  private inOrder(model: Model<any>): (docs: object[]) => Promise<InsertedInOrder> {
    let insert = this.ordered.get(model);
    if (!insert) {
      insert = grouped(async (lists: object[][]) => {
        const all = lists.flat();
        let stop = all.length;
        let failure: InsertedInOrder['failure'];
        try {
          await model.collection.insertMany(all, { ordered: true, ignoreUndefined: true });
        } catch (err) {
          const [first] = writeFailures(err);
          if (!first) throw err;
          stop = first.index;
          failure = { err, duplicate: first.duplicate };
        }
        let start = 0;
        return lists.map((list) => {
          const from = start;
          start += list.length;
          return {
            inserted: Math.max(0, Math.min(list.length, stop - from)),
            failure: stop >= from && stop < start ? failure : undefined,
          };
        });
      });
      this.ordered.set(model, insert);
    }
    return insert;
  }

  /**
   * Inserts records carrying events, each under its unique `_id`, in two calls however many
   * they are (their pointers, then the records); answers those inserted here. The others were
   * inserted first by someone else (rule 9) and are left as they are.
   */
  async insertAll<T extends { _id: string | Types.ObjectId }>(
    model: Model<T>,
    items: { record: T; events: EventEnvelope[] }[],
  ): Promise<T[]> {
    const carriers = await this.pointTo(
      model,
      items.map(({ record, events }) => ({ events, key: { _id: record._id } })),
    );
    const taken = await insertNew(
      model,
      items.map(({ record, events }) => ({ ...record, events })),
    );
    const inserted = items.filter((item, i) => {
      if (taken.has(i)) return false;
      if (carriers[i]) this.land(carriers[i]._id, item.events);
      return true;
    });
    if (carriers.some(Boolean)) this.onRecorded();
    return inserted.map((i) => i.record);
  }

  /** Keeps what a record this process inserted carries, for its relay (see `landed`). */
  private land(pointerId: string, events: EventEnvelope[]): void {
    keepRecent(this.landed, pointerId, events, LANDED_KEPT);
  }

  /**
   * Inserts a record carrying events under its unique `_id`, or answers the record inserted first
   * (rule 9), as `insertOnce` does. It looks first, so a record decided long ago (asked again by
   * a repair round) gets no pointer the relay would follow again; `lookFirst: false` saves that
   * read where the caller is nearly always first (an order's fate as it is paid): a repeat then
   * leaves a pointer whose events the relay remembers sending, and consumers apply once.
   */
  async insertOnce<T extends { _id: unknown }>(
    model: Model<T>,
    record: T,
    events: EventEnvelope[],
    { lookFirst = true } = {},
  ): Promise<{ first: boolean; record: T }> {
    const decided = lookFirst ? await model.findById(record._id).lean<T>() : null;
    if (decided) return { first: false, record: decided };
    return insertOnce(model, record, () =>
      this.create(model, record, events, { _id: record._id as string | Types.ObjectId }),
    );
  }
}

/** The outbox record that points to the record in `collection` under its unique `key`. */
function pointer(collection: string, key: Record<string, string | number | Types.ObjectId>) {
  const name = `${collection}:${Object.values(key).map(String).join(':')}`;
  return { _id: name, order: new Types.ObjectId(), carrier: { collection, filter: key } };
}

/**
 * A pointer whose record is not there yet is asked about again after this long, doubling up to
 * the most (the next writer of the same key may reuse it at any moment). One whose record has not
 * appeared in a day belongs to a writer that lost its race or died, and is dropped.
 */
const RECHECK_MS = { first: 500, most: 5_000, dropAfter: 24 * 3600_000 };

/**
 * A pointer younger than this whose record is missing holds back every record after it: its
 * writer is most likely between its two inserts, and its events must leave before later ones of
 * the same user (a balance announced after a newer one would be read as the latest). Past this
 * age the writer has stalled or died, and the pointer is asked about again later (RECHECK_MS)
 * without holding up the rest.
 */
const HOLD_MS = 3_000;

/**
 * How long the relay remembers an event it sent. The repeats it saves come within seconds of the
 * send: a relay cut off between its send and its delete is followed by the next one within the
 * lease (LEASE_MS), and a writer that lost its race made its pointer as the winner did. One key
 * per event sent: at 20 orders a second, with their events, an hour is a few hundred thousand
 * keys, where a day was millions, all in Redis's memory and read back at each of its starts.
 */
const SENT_KEPT_SECONDS = 3_600;

/**
 * One relay of a service sends at a time: two that read the same batch would both send it
 * (consumers drop the repeats, but each costs a send and a consume). The one sending holds a
 * lease in Redis, renewed before each batch; the others ask at each poll and take it over
 * within this long when its holder stops or dies. Without Redis every relay sends.
 */
const LEASE_MS = 5_000;
const TAKE_LEASE = `local holder = redis.call('get', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;
const GIVE_UP_LEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`;

export class OutboxRelay {
  private producer: Producer;
  private readonly id = randomUUID();
  private connected = false;
  private topicsReady = false;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  /** Pointers whose record was missing: when to look again, and the wait after that. */
  private readonly later = new Map<string, { at: number; wait: number }>();
  /** Whether this relay held the lease at its last look: if not, a wake-up goes to the one that does. */
  private holding = false;
  /** Hears the wake-ups other instances' writers send (see nudge). */
  private listener?: IORedis;
  /** Set by a wake-up; a wake-up during a batch has the relay look again at once after it. */
  private woken = false;
  /** When this relay last took or renewed its lease (0: it does not hold it). */
  private leaseTakenAt = 0;

  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly topicPrefix: string;
  private readonly partitions: number;

  constructor(
    private readonly kafka: Kafka,
    private readonly outbox: Outbox,
    private readonly logger: Logger,
    options: { pollMs?: number; batchSize?: number; topicPrefix?: string; partitions?: number } = {},
    /** Where sent event ids are remembered for a while (SENT_KEPT_SECONDS); optional. */
    private readonly redis?: IORedis,
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.batchSize = options.batchSize ?? 100;
    this.topicPrefix = options.topicPrefix ?? '';
    this.partitions = options.partitions ?? 3;
    this.producer = this.newProducer();
    outbox.onRecorded = () => this.nudge();
  }

  private newProducer(): Producer {
    return this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true });
  }

  /**
   * After a failed send the relay sends through a new producer, as a failed producer of kafkajs
   * may never send again:
   * - The broker may have written a send whose answer never came (it was killed or stalled after
   *   writing it). The producer numbers its next batch from where that send began, and that batch
   *   holds more events, so the broker refuses it as out of order, and every one after it. A new
   *   producer gets a new id and numbers from zero; what the lost answer hid is sent again, and
   *   consumers drop the repeats by event id.
   * - A connect whose first request timed out (a stalled broker) leaves the producer's connection
   *   open but unusable: every later send fails with 'Broker not connected'.
   */
  private renewProducer(): void {
    const failed = this.producer;
    this.producer = this.newProducer();
    this.connected = false;
    failed.disconnect().catch(() => undefined);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.listen();
    this.loop = this.run();
  }

  /**
   * Publishes without waiting for the next poll, right after a write. When another instance's
   * relay holds the lease, that one is woken through Redis; a lost wake-up costs one poll's wait.
   */
  nudge(): void {
    this.wakeUp();
    if (!this.holding && this.redis?.status === 'ready') {
      this.redis.publish(this.wakeChannel(), '1').catch(() => undefined);
    }
  }

  private wakeChannel = () => `raseed:outbox:wake:${this.topicPrefix}${this.outbox.conn.name}`;

  /** Wakes this relay when another instance's writer recorded events. */
  private listen(): void {
    if (!this.redis) return;
    const listener = this.redis.duplicate();
    listener.on('error', () => undefined);
    listener.on('message', () => this.wakeUp());
    listener.subscribe(this.wakeChannel()).catch(() => undefined);
    this.listener = listener;
  }

  private wakeUp(): void {
    this.woken = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp();
    this.listener?.disconnect();
    await this.loop;
    // Another instance's relay takes over at its next poll rather than after the lease runs out.
    await this.quickly((redis) => redis.eval(GIVE_UP_LEASE, 1, this.leaseKey(), this.id));
    await this.producer.disconnect().catch(() => undefined);
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let batch = { sent: 0, full: false };
      this.woken = false;
      try {
        batch = await this.drainOnce();
        failures = 0;
      } catch (err) {
        failures++;
        this.logger.warn({ err, failures }, 'outbox relay could not publish; will retry');
      }
      if (!this.running) break;
      // After a batch that took all there was, the outbox holds only what was written since, and
      // each such write woke the relay: it looks again at once only then, or when the batch was
      // full, and otherwise at the next poll (a look that finds nothing costs a store query).
      if (failures) await this.sleep(Math.min(5000, this.pollMs * 2 ** failures));
      else if (!this.woken && !(batch.sent > 0 && batch.full)) await this.sleep(this.pollMs);
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

  /**
   * Publishes one batch of outbox records and deletes them; answers how many were sent, and
   * whether the look found a whole batch (more may be waiting).
   */
  async drainOnce(): Promise<{ sent: number; full: boolean }> {
    if (!(await this.holdsLease())) return { sent: 0, full: false };
    const records = await this.nextRecords();
    const full = records.length === this.batchSize;
    const sent: string[] = [];
    const events: { event: EventEnvelope; landed: boolean }[] = [];
    for (const record of records) {
      const landed = this.outbox.landed.get(record._id);
      const carried = record.event ? [record.event] : (landed ?? (await this.carried(record)));
      if (carried === 'hold') break;
      if (!carried) continue;
      events.push(...carried.map((event) => ({ event, landed: carried === landed })));
      sent.push(record._id);
    }
    if (!sent.length) return { sent: 0, full };
    const fresh = await this.notSentBefore(events);
    // Landed events go out now: should anything below fail, the next look reads their records
    // and asks Redis.
    for (const id of sent) this.outbox.landed.delete(id);
    if (fresh.length) {
      await this.publish(fresh);
      await this.remember(fresh);
    }
    await this.outbox.records.deleteMany({ _id: { $in: sent } });
    for (const id of sent) this.later.delete(id);
    return { sent: sent.length, full };
  }

  /**
   * The next batch of records in their order, less the pointers set aside for a recheck. A
   * pointer this process has since filled (a later writer of the same key reused it, keeping
   * its place) is not set aside: it leaves in its place, ahead of the records that follow it.
   * When one is filled while the batch is read, the batch is read again, so no record that
   * follows it is sent before it.
   */
  private async nextRecords(): Promise<OutboxRecord[]> {
    for (;;) {
      const now = Date.now();
      const waiting = [...this.later]
        .filter(([id, next]) => next.at > now && !this.outbox.landed.has(id))
        .map(([id]) => id);
      const records = await this.outbox.records
        .find(waiting.length ? { _id: { $nin: waiting } } : {})
        .sort({ order: 1 })
        .limit(this.batchSize)
        .lean<OutboxRecord[]>();
      if (!waiting.some((id) => this.outbox.landed.has(id))) return records;
    }
  }

  private leaseKey = () => `raseed:outbox:lease:${this.topicPrefix}${this.outbox.conn.name}`;

  /**
   * Whether this relay may send now (LEASE_MS); true when Redis cannot tell. A lease taken less
   * than a fifth of its time ago is still held without asking Redis again.
   */
  private async holdsLease(): Promise<boolean> {
    const asked = Date.now();
    if (this.holding && asked - this.leaseTakenAt < LEASE_MS / 5) return true;
    const held = await this.quickly((redis) =>
      redis.eval(TAKE_LEASE, 1, this.leaseKey(), this.id, String(LEASE_MS)),
    );
    this.holding = held === null || held === 1;
    this.leaseTakenAt = held === 1 ? asked : 0;
    return this.holding;
  }

  private sentKey = (event: EventEnvelope) => `raseed:outbox:sent:${this.topicPrefix}${event.id}`;

  /**
   * The events not remembered as sent; all of them when Redis cannot tell (consumers drop
   * duplicates). Redis only saves duplicates here, so it never holds the relay up. Events that
   * landed in this process (see Outbox.landed) were inserted here and not sent since: not asked.
   */
  private async notSentBefore(events: { event: EventEnvelope; landed: boolean }[]): Promise<EventEnvelope[]> {
    const asked = events.filter((e) => !e.landed).map((e) => e.event);
    const seen = asked.length ? await this.quickly((redis) => redis.mget(asked.map(this.sentKey))) : null;
    const sentBefore = new Set(asked.filter((_, i) => seen !== null && seen[i] !== null));
    return events.map((e) => e.event).filter((event) => !sentBefore.has(event));
  }

  private async remember(events: EventEnvelope[]): Promise<void> {
    await this.quickly((redis) => {
      const batch = redis.pipeline();
      for (const event of events) batch.set(this.sentKey(event), '1', 'EX', SENT_KEPT_SECONDS);
      return batch.exec();
    });
  }

  /** A Redis call that answers within a moment, or null (Redis away or slow). */
  private async quickly<T>(call: (redis: IORedis) => Promise<T>): Promise<T | null> {
    if (this.redis?.status !== 'ready') return null;
    return within(
      500,
      call(this.redis).catch(() => null),
      null,
    );
  }

  /**
   * The events of a pointer's record; while the record is not there, 'hold' if the pointer is
   * young enough to keep the records after it waiting (HOLD_MS), else null.
   */
  private async carried(record: OutboxRecord): Promise<EventEnvelope[] | 'hold' | null> {
    const { collection, filter } = record.carrier!;
    const doc = await this.outbox.conn.collection(collection).findOne(filter, { projection: { events: 1 } });
    if (doc) return (doc.events as EventEnvelope[] | undefined) ?? [];
    const age = Date.now() - record.order.getTimestamp().getTime();
    if (age < HOLD_MS) return 'hold';
    if (age > RECHECK_MS.dropAfter) {
      this.logger.warn({ pointer: record._id }, 'dropping an outbox pointer whose record never appeared');
      return [];
    }
    const wait = this.later.get(record._id)?.wait ?? RECHECK_MS.first;
    this.later.set(record._id, { at: Date.now() + wait, wait: Math.min(RECHECK_MS.most, wait * 2) });
    return null;
  }

  /** Sends the events; after any failure the next send goes through a new producer (renewProducer). */
  private async publish(events: EventEnvelope[]): Promise<void> {
    try {
      await this.ready();
      await this.send(events);
    } catch (err) {
      this.renewProducer();
      throw err;
    }
  }

  private async ready(): Promise<void> {
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
  }

  private async send(events: EventEnvelope[]): Promise<void> {
    const byTopic = new Map<string, { key: string; value: string; headers: Record<string, string> }[]>();
    // An event born in a trace is sent in a span of that trace, which its consumers continue.
    const spans = [];
    for (const event of events) {
      const topic = this.topicPrefix + event.type;
      const messages = byTopic.get(topic) ?? [];
      const sending =
        event.trace &&
        openSpan(`${event.type} publish`, SpanKind.PRODUCER, carriedContext(event.trace), {
          'messaging.system': 'kafka',
          'messaging.destination.name': topic,
          'messaging.message.id': event.id,
        });
      if (sending) spans.push(sending.span);
      const headers = { 'event-id': event.id, ...sending?.carrier };
      messages.push({ key: event.key, value: JSON.stringify(event), headers });
      byTopic.set(topic, messages);
    }
    try {
      await this.producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
    } catch (err) {
      for (const span of spans) span.recordException(err as Error);
      throw err;
    } finally {
      for (const span of spans) span.end();
    }
  }
}
