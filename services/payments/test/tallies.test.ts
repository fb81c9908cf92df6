import { DocumentLocks, hourKey, Outbox } from '@raseed/kit';
import { Types } from 'mongoose';
import { PaymentStore, type PaymentModels } from '../src/data/payments';
import { openPaymentStore } from './support';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let models: PaymentModels;
let store: PaymentStore;
let locks: DocumentLocks;
let outbox: Outbox;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ models, store, locks, outbox, close } = await openPaymentStore());
});
afterAll(() => close());

/** Payments written straight to the store, made at the given times; a legacy one carries no hour. */
async function seed(times: Date[], { legacy = false } = {}) {
  await models.Payment.collection.insertMany(
    times.map((createdAt) => ({
      _id: new Types.ObjectId(),
      userId: 'u1',
      username: 'seeded',
      productName: 'Whish-Money',
      amount: 5_000_000,
      amountToSend: null,
      type: 'IN',
      status: 'waiting',
      asDebt: false,
      receipt: null,
      createdBy: 'u1',
      createdAt,
      ...(!legacy && { hour: hourKey(createdAt) }),
      decidedAt: null,
    })),
  );
}

const all = () => models.Payment.countDocuments();
const at = (text: string) => new Date(`${text}Z`);

describe('the tallies of payments', () => {
  // 14:05 on 10 June (UTC): the hour from 13:00 is still in its grace period.
  const now = at('2026-06-10T14:05:00');

  it('count the payments made before they had an hour in the first tally, and each hour once after it', async () => {
    await seed([at('2025-07-01T08:00:00'), at('2026-06-01T10:30:00'), at('2026-06-10T12:10:00')], {
      legacy: true,
    });
    await seed([
      at('2026-06-10T12:40:00'),
      // The hour in its grace period, and the current one.
      at('2026-06-10T13:50:00'),
      at('2026-06-10T14:01:00'),
    ]);

    // No tally yet: every payment is counted.
    expect(await store.tallies.count(now)).toBeUndefined();
    expect(await store.count()).toBe(6);

    expect(await store.tallies.close(now)).toBe('2026-06-10T12');
    // Through 12:59:59, by time: the legacy payments are in it.
    expect(await models.Tally.find().lean()).toEqual([{ _id: '2026-06-10T12', count: 4 }]);
    expect(await store.tallies.count(now)).toBe(6);
    expect(await store.tallies.close(now)).toBeUndefined();

    // A payment made now is counted from its hour, and so is one stamped by a clock an hour ahead.
    await seed([at('2026-06-10T14:04:00'), at('2026-06-10T15:01:00')]);
    expect(await store.tallies.count(now)).toBe(8);

    // The next tally adds the hours since, by their index.
    const later = new Date(now.getTime() + 3 * HOUR);
    expect(await store.tallies.close(later)).toBe('2026-06-10T15');
    expect(await models.Tally.findById('2026-06-10T15').lean()).toEqual({ _id: '2026-06-10T15', count: 8 });
    expect(await store.tallies.count(later)).toBe(await all());
  });

  it('are one record per hour counted when many instances count at once (rule 9)', async () => {
    const dayAfter = new Date(now.getTime() + 2 * DAY);
    await seed(Array.from({ length: 30 }, (_, i) => new Date(dayAfter.getTime() - 20 * HOUR + i * MINUTE)));
    const instances = Array.from({ length: 120 }, () => new PaymentStore(models, locks, outbox));

    const answers = await Promise.all(instances.map((s) => s.tallies.close(dayAfter)));
    expect(new Set(answers)).toEqual(new Set(['2026-06-12T12']));
    const tallies = await models.Tally.find().sort({ _id: 1 }).lean();
    // Those more than a day old are gone.
    expect(tallies.map((t) => t._id)).toEqual(['2026-06-12T12']);
    expect(await store.tallies.count(dayAfter)).toBe(await all());
  });

  it('stamp a payment with the hour it is made in, and count it in the lists of every payment', async () => {
    const before = await store.count();
    const payment = await store.submit({
      userId: new Types.ObjectId().toString(),
      username: 'buyer',
      productName: 'Binance',
      amount: 10_000_000,
      amountToSend: null,
      type: 'IN',
      status: 'waiting',
      asDebt: false,
      receipt: null,
      createdBy: 'buyer',
    });
    const stored = await models.Payment.findById(payment._id).lean();
    expect(stored?.hour).toBe(hourKey(stored!.createdAt));
    // A tally more than two days old is not trusted: every payment is counted until the next one.
    expect(await store.count()).toBe(before + 1);
    expect(await store.count()).toBe(await all());
    expect((await store.page({}, 1, 10)).total).toBe(await all());
    // A filter is counted payment by payment.
    expect(await store.count({ status: 'waiting' })).toBe(
      await models.Payment.countDocuments({ status: 'waiting' }),
    );
  });
});
