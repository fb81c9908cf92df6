import { DocumentLocks, hourKey, HourTallies, Outbox, redisConnection } from '@raseed/kit';
import { dropDatabase, openDatabase, testEnv } from '@raseed/kit/testing';
import type IORedis from 'ioredis';
import { Types, type Connection } from 'mongoose';
import { orderModels, OrderStore, type OrderModels } from '../src/data/orders';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let conn: Connection;
let redis: IORedis;
let models: OrderModels;
let store: OrderStore;
const env = testEnv('orders');
beforeAll(async () => {
  conn = await openDatabase(env.MONGO_DB!);
  models = orderModels(conn);
  await Promise.all(Object.values(models).map((m) => m.init()));
  redis = redisConnection(env.REDIS_URL!);
  store = new OrderStore(models, new DocumentLocks(redis), new Outbox(conn));
});
afterAll(async () => {
  await conn.close();
  await dropDatabase(env.MONGO_DB!);
  redis.disconnect();
});

type Fate = 'paid' | 'unsettled' | 'failed';

/** Orders written straight to the store, placed at the given times, each with its fate shown. */
async function seed(orders: [Date, Fate][]): Promise<Types.ObjectId[]> {
  const docs = orders.map(([createdAt, fate]) => ({
    _id: new Types.ObjectId(),
    userId: 'u1',
    username: 'seeded',
    productId: 'p1',
    productName: 'Gift card',
    kind: 'created',
    supplierId: null,
    quantity: 1,
    unitPrice: 2_000_000,
    total: 2_000_000,
    params: '',
    fields: {},
    status: 'waiting',
    paid: fate === 'paid',
    failed: fate === 'failed' ? { status: 400, error: 'Insufficient balance' } : null,
    fingerprint: null,
    stocked: false,
    replay: null,
    externalId: null,
    reason: null,
    createdAt,
    hour: hourKey(createdAt),
    decidedAt: null,
  }));
  await models.Order.collection.insertMany(docs);
  return docs.map((d) => d._id);
}

const paidNow = () => models.Order.countDocuments({ paid: true });
const at = (text: string) => new Date(`${text}Z`);

describe('the tallies of paid orders', () => {
  // 14:05 on 10 June (UTC): the hour from 13:00 is still in its grace period.
  const now = at('2026-06-10T14:05:00');

  it('count the hours that are over once, and the hours after them order by order', async () => {
    await seed([
      [at('2026-04-11T09:00:00'), 'paid'],
      [at('2026-04-11T09:59:59'), 'paid'],
      [at('2026-05-31T22:30:00'), 'failed'],
      [at('2026-06-09T23:59:59'), 'paid'],
      [at('2026-06-10T12:59:59'), 'paid'],
      // The hour in its grace period, and the current one.
      [at('2026-06-10T13:50:00'), 'paid'],
      [at('2026-06-10T14:02:00'), 'paid'],
      [at('2026-06-10T14:03:00'), 'failed'],
    ]);

    // No tally yet: the count is left to the caller, which counts every order.
    expect(await store.tallies.count(now)).toBeUndefined();
    expect(await store.count()).toBe(6);

    expect(await store.tallies.close(now)).toBe('2026-06-10T12');
    expect(await models.Tally.find().lean()).toEqual([{ _id: '2026-06-10T12', paid: 4 }]);
    expect(await store.tallies.count(now)).toBe(6);
    // Within the same hours, nothing more to count.
    expect(await store.tallies.close(now)).toBeUndefined();

    // An order placed now is counted from its hour, and so is one stamped by a clock an hour ahead.
    await seed([
      [at('2026-06-10T14:04:00'), 'paid'],
      [at('2026-06-10T15:01:00'), 'paid'],
    ]);
    expect(await store.tallies.count(now)).toBe(8);
    expect(await store.count()).toBe(await paidNow());
    // A filter is counted order by order.
    expect(await store.count({ status: 'waiting' })).toBe(8);
  });

  it('wait for an order whose payment is not known yet before counting its hour', async () => {
    const later = new Date(now.getTime() + DAY);
    const [pending] = await seed([
      [at('2026-06-10T16:30:00'), 'unsettled'],
      [at('2026-06-10T18:00:00'), 'paid'],
    ]);

    // Counted through the hour before the unsettled order's.
    expect(await store.tallies.close(later)).toBe('2026-06-10T15');
    expect(await store.tallies.count(later)).toBe(await paidNow());

    // Paid since: its hour and those after it are counted, and the figure still holds.
    await models.Order.updateOne({ _id: pending }, { $set: { paid: true } });
    expect(await store.tallies.close(later)).toBe('2026-06-11T12');
    expect(await store.tallies.count(later)).toBe(await paidNow());
    expect(await store.count()).toBe(10);
  });

  it('are one record per hour counted when many instances count at once (rule 9)', async () => {
    const dayAfter = new Date(now.getTime() + 2 * DAY);
    await seed(
      Array.from({ length: 30 }, (_, i) => [new Date(dayAfter.getTime() - 20 * HOUR + i * MINUTE), 'paid']),
    );
    const instances = Array.from({ length: 120 }, () => new HourTallies(models.Tally, store));

    const answers = await Promise.all(instances.map((t) => t.close(dayAfter)));
    expect(new Set(answers)).toEqual(new Set(['2026-06-12T12']));
    const tallies = await models.Tally.find().sort({ _id: 1 }).lean();
    // Those more than a day old are gone.
    expect(tallies.map((t) => t._id)).toEqual(['2026-06-12T12']);
    expect(tallies.at(-1)!.paid).toBe(await paidNow());
    expect(await store.tallies.count(dayAfter)).toBe(await paidNow());
  });

  it('count a store whose last tally is days old order by order until it is tallied again', async () => {
    const weekAfter = new Date(now.getTime() + 7 * DAY);
    await seed([[new Date(weekAfter.getTime() - 3 * DAY), 'paid']]);
    expect(await store.tallies.count(weekAfter)).toBeUndefined();
    expect(await store.count()).toBe(await paidNow());
    await store.tallies.close(weekAfter);
    expect(await store.tallies.count(weekAfter)).toBe(await paidNow());
  });
});
