import { hourKey, startOfDisplayMonth } from '@raseed/kit';
import { Types } from 'mongoose';
import type { PaymentModels, PaymentStore } from '../src/data/payments';
import { SalesBook } from '../src/data/sales';
import { openPaymentStore } from './support';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let models: PaymentModels;
let store: PaymentStore;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ models, store, close } = await openPaymentStore());
});
afterAll(() => close());

const book = () => new SalesBook(models.SaleSummary, models.SaleUserTotals, store);
const customers = ['a', 'b', 'c'].map(() => new Types.ObjectId().toString());

interface Seeded {
  userId: string;
  amount: number;
  type: 'IN' | 'OUT';
  status: 'waiting' | 'confirmed' | 'rejected';
  decidedAt: Date | null;
  /** A sale confirmed before sales had an hour. */
  legacy?: boolean;
}

async function seed(payments: Seeded[]) {
  await models.Payment.collection.insertMany(
    payments.map((p) => ({
      _id: new Types.ObjectId(),
      userId: p.userId,
      username: 'seeded',
      productName: 'Binance',
      amount: p.amount,
      amountToSend: null,
      type: p.type,
      status: p.status,
      asDebt: false,
      receipt: null,
      createdBy: 'seeded',
      createdAt: new Date((p.decidedAt ?? new Date(0)).getTime() - MINUTE),
      decidedAt: p.decidedAt,
      ...(p.type === 'IN' && p.status === 'confirmed' && !p.legacy && { saleHour: hourKey(p.decidedAt!) }),
    })),
  );
}

/** The figures as the spec defines them, from every sale. */
function expected(payments: Seeded[], now: Date) {
  const weekStart = now.getTime() - 7 * DAY;
  const monthStart = startOfDisplayMonth(now).getTime();
  const figures = { total: 0, weekly: 0, monthly: 0, users: new Map<string, number>() };
  for (const p of payments) {
    if (p.type !== 'IN' || p.status !== 'confirmed') continue;
    const at = p.decidedAt!.getTime();
    figures.total += p.amount;
    if (at >= weekStart) figures.weekly += p.amount;
    if (at >= monthStart) figures.monthly += p.amount;
    figures.users.set(p.userId, (figures.users.get(p.userId) ?? 0) + p.amount);
  }
  return figures;
}

describe('the sales figures', () => {
  // 14:05 on 10 June (UTC): the week starts at 14:05 on 3 June, the month at 22:00 on 31 May
  // (midnight in the display zone), and the hour from 13:00 is still in its grace period.
  const now = new Date(Date.UTC(2026, 5, 10, 14, 5));
  const at = (text: string) => new Date(`${text}Z`);
  const sale = (userId: string, amount: number, when: Date, legacy = false): Seeded => ({
    userId,
    amount,
    type: 'IN',
    status: 'confirmed',
    decidedAt: when,
    legacy,
  });
  const [a, b, c] = customers as [string, string, string];
  const history: Seeded[] = [
    sale(a, 1_000_000, at('2026-04-11T09:00:00')),
    sale(b, 2_000_000, at('2026-05-10T10:30:00')),
    sale(c, 4_000_000, at('2026-05-21T08:00:00'), true),
    // Either side of the month's start in the display zone.
    sale(a, 8_000_000, at('2026-05-31T21:30:00')),
    sale(b, 16_000_000, at('2026-05-31T22:30:00')),
    // Either side of the week's start, within one hour.
    sale(c, 32_000_000, at('2026-06-03T14:01:00')),
    sale(a, 64_000_000, at('2026-06-03T14:40:00')),
    sale(b, 128_000_000, at('2026-06-08T23:59:59')),
    // The hour in its grace period, and the current one.
    sale(c, 256_000_000, at('2026-06-10T13:50:00')),
    sale(a, 512_000_000, at('2026-06-10T14:02:00')),
    // Not sales.
    { userId: a, amount: 3_000_000, type: 'IN', status: 'rejected', decidedAt: at('2026-06-09T10:00:00') },
    { userId: b, amount: 5_000_000, type: 'OUT', status: 'confirmed', decidedAt: at('2026-06-09T11:00:00') },
    { userId: c, amount: 7_000_000, type: 'IN', status: 'waiting', decidedAt: null },
  ];
  beforeAll(() => seed(history));

  it('are the same from every sale, and from the summary of the hours that are over, with what came after', async () => {
    const want = expected(history, now);
    expect(want.weekly).toBe(64_000_000 + 128_000_000 + 256_000_000 + 512_000_000);
    expect(want.monthly).toBe(want.weekly + 16_000_000 + 32_000_000);

    // No summary yet: every sale is read, and the one without an hour gets it.
    expect(await book().figures(now)).toEqual(want);
    expect(await models.Payment.countDocuments({ saleHour: '2026-05-21T08' })).toBe(1);

    // The hours through 12:00 are summed once; 13:00 is in its grace period.
    expect(await book().close(now)).toBe('2026-06-10T12');
    expect(await book().close(now)).toBeUndefined();
    expect(await models.SaleSummary.countDocuments()).toBe(1);
    expect(await models.SaleUserTotals.countDocuments()).toBe(1);
    expect(await book().figures(now)).toEqual(want);
    // The admin home's sums and the discounts page's totals, each read alone, are the same.
    const { users, ...sums } = want;
    expect(await book().totals(now)).toEqual(sums);
    expect(await book().users(now)).toEqual(users);
    // One instance reads the customers' totals of a summary once, and answers them again unchanged.
    const reader = book();
    (await reader.figures(now)).users.clear();
    expect(await reader.figures(now)).toEqual(want);

    // Later, with the week's start moved past the 14:40 sale on 3 June.
    const later = new Date(now.getTime() + 2 * HOUR);
    const wantLater = expected(history, later);
    expect(wantLater.weekly).toBe(want.weekly - 64_000_000);
    expect(await book().figures(later)).toEqual(wantLater);
  });

  it('are summed once when 100 instances sum the same hours at once', async () => {
    const later = new Date(now.getTime() + 2 * HOUR);
    const closed = await Promise.all(Array.from({ length: 100 }, () => book().close(later)));
    expect(new Set(closed)).toEqual(new Set(['2026-06-10T14']));
    expect(await models.SaleSummary.find().sort({ _id: 1 }).distinct('_id')).toEqual([
      '2026-06-10T12',
      '2026-06-10T14',
    ]);
    expect(await book().figures(later)).toEqual(expected(history, later));
  });

  it('wait for a confirmation that has not reached its payment before summing its hour', async () => {
    // Confirmed at 15:10, but the payment still waits (its status change was cut off).
    const payment = new Types.ObjectId();
    const decidedAt = at('2026-06-10T15:10:00');
    await models.Payment.collection.insertOne({
      _id: payment,
      userId: c,
      username: 'seeded',
      productName: 'Binance',
      amount: 1_024_000_000,
      amountToSend: null,
      type: 'IN',
      status: 'waiting',
      asDebt: false,
      receipt: null,
      createdBy: 'customer',
      createdAt: new Date(decidedAt.getTime() - HOUR),
      decidedAt: null,
    });
    await models.Decision.collection.insertOne({
      _id: payment.toString() as never,
      action: 'confirmed',
      adminId: 'admin',
      at: decidedAt,
    });
    const nextDay = new Date(now.getTime() + DAY);
    // 14:00 is summed already, and 15:00 waits for it.
    expect(await book().close(nextDay)).toBeUndefined();

    expect(await store.repairDecisions(0)).toBe(1);
    expect(await book().close(nextDay)).toBe(hourKey(new Date(nextDay.getTime() - 10 * MINUTE - HOUR)));
    const all = [...history, sale(c, 1_024_000_000, decidedAt)];
    expect(await book().figures(nextDay)).toEqual(expected(all, nextDay));
  });

  it("are read from a summary written with the customers' totals inside it, and carried on", async () => {
    const all = [...history, sale(c, 1_024_000_000, at('2026-06-10T15:10:00'))];
    const nextDay = new Date(now.getTime() + DAY);
    // The latest summary as it was stored before the totals had a record of their own.
    const last = (await models.SaleSummary.findOne().sort({ _id: -1 }).lean())!;
    const totals = (await models.SaleUserTotals.findById(last._id).lean())!;
    await models.SaleUserTotals.deleteOne({ _id: last._id });
    await models.SaleSummary.deleteOne({ _id: last._id });
    await models.SaleSummary.create({
      _id: last._id,
      total: last.total,
      hours: last.hours,
      users: totals.users,
    });
    expect(await book().figures(nextDay)).toEqual(expected(all, nextDay));

    const later = new Date(nextDay.getTime() + 3 * HOUR);
    const through = await book().close(later);
    expect(through).toBe(hourKey(new Date(later.getTime() - 10 * MINUTE - HOUR)));
    expect((await models.SaleUserTotals.findById(through).lean())?.users).toBeDefined();
    expect(await book().figures(later)).toEqual(expected(all, later));
  });
});
