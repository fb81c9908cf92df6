import {
  hourAfter,
  hourKey,
  hoursToClose,
  hourStart,
  insertOnce,
  modelOf,
  startOfDisplayMonth,
} from '@raseed/kit';
import { Schema, type Connection, type Model } from 'mongoose';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * An hour is summed this long after it ended. A sale belongs to the hour of its decision's
 * time, and its decision is recorded at once; one recorded later than this after its time
 * (its process paused that long between the two) is left out of the figures.
 */
const SALE_GRACE_MS = 10 * 60_000;
/** A summary keeps the amounts of this many days of hours: the longest figure (a month) and a day. */
const KEPT_HOURS_MS = 33 * DAY_MS;
/** Summaries older than this are deleted (the latest is always kept). */
const KEPT_SUMMARIES_MS = DAY_MS;
/** Up to this many hours not yet summed are read one hour at a time (by index); more, all at once. */
const HOURS_READ_APART = 48;

/** A sale as the figures read it: a confirmed IN payment. */
export interface SaleRow {
  userId: string;
  /** Micro-dollars. */
  amount: number;
  decidedAt: Date | null;
  saleHour?: string;
}

/** Where the sales come from: the payments. */
export interface SaleSource {
  /** The sales of one hour. */
  salesIn(hour: string): Promise<SaleRow[]>;
  /** Every sale. */
  allSales(): Promise<SaleRow[]>;
  /** When the oldest payment was made, if any: no sale is older. */
  firstPaymentAt(): Promise<Date | undefined>;
  /** The earliest time of a confirmation whose payment does not show it yet, if any. */
  earliestUnapplied(): Promise<Date | undefined>;
}

/**
 * The sales through one hour, summed once when that hour is over: inserted under the hour's
 * key (rule 9), so instances that sum it at the same moment agree on one record.
 */
interface SaleSummary {
  /** The last hour summed. */
  _id: string;
  /** Micro-dollars of every sale through that hour. */
  total: number;
  /** The amount of each hour with sales, for the last KEPT_HOURS_MS. */
  hours: Record<string, number>;
  /** Each customer's sales through that hour. */
  users: ReadonlyMap<string, number>;
}

/**
 * A summary as stored: the hours as JSON text, as the local store reads one long string far
 * faster than thousands of fields. The customers' totals are a record of their own under the
 * same key, written first: the store reads a document of 5,000 customers in 20 ms however
 * little of it is asked for, and only the sales per user need them.
 */
export interface StoredSummary {
  _id: string;
  total: number;
  hours: string;
  /** The customers' totals, in a summary written before they had a record of their own. */
  users?: string;
}

/** The customers' totals of the summary under the same key, as JSON text. */
export interface StoredUserTotals {
  _id: string;
  users: string;
}

const summarySchema = new Schema(
  {
    _id: String,
    total: { type: Number, required: true },
    hours: { type: String, required: true },
    users: { type: String },
  },
  { versionKey: false },
);

const userTotalsSchema = new Schema(
  { _id: String, users: { type: String, required: true } },
  { versionKey: false },
);

export const saleSummaryModel = (conn: Connection) =>
  modelOf<StoredSummary>(conn, 'SaleSummary', summarySchema, 'sale_summaries');

export const saleUserTotalsModel = (conn: Connection) =>
  modelOf<StoredUserTotals>(conn, 'SaleUserTotals', userTotalsSchema, 'sale_user_totals');

const usersText = (users: ReadonlyMap<string, number>) => JSON.stringify(Object.fromEntries(users));
const usersOf = (text: string) =>
  new Map(Object.entries(JSON.parse(text) as Record<string, number>)) as ReadonlyMap<string, number>;

export interface SaleFigures {
  /** Micro-dollars, as the admin home shows them (spec §9). */
  total: number;
  weekly: number;
  monthly: number;
  /** Each customer's sales total. */
  users: Map<string, number>;
}

/** What the figures are read from: the latest summary, and the sales of the hours after it. */
interface CurrentSales {
  last?: SaleSummary;
  open: SaleRow[];
}

/**
 * The admin's sales figures without reading every sale: the latest summary, plus the sales of
 * the hours after it (the current one and the grace period), read by their hour's index.
 */
export class SalesBook {
  private closing = false;
  /** The customers' totals of the latest summary read: a summary never changes once inserted. */
  private usersRead?: { through: string; users: ReadonlyMap<string, number> };

  constructor(
    private readonly summaries: Model<StoredSummary>,
    private readonly userTotals: Model<StoredUserTotals>,
    private readonly source: SaleSource,
  ) {}

  private async latest(): Promise<SaleSummary | undefined> {
    const last = await this.summaries.findOne().sort({ _id: -1 }).lean<StoredSummary>();
    if (!last) return undefined;
    return {
      _id: last._id,
      total: last.total,
      hours: JSON.parse(last.hours) as Record<string, number>,
      users: await this.usersThrough(last),
    };
  }

  /** The customers' totals of a summary, read once for each latest summary. */
  private async usersThrough(summary: StoredSummary): Promise<ReadonlyMap<string, number>> {
    if (this.usersRead?.through !== summary._id) {
      let text = summary.users;
      if (text === undefined) {
        const totals = await this.userTotals.findById(summary._id).lean<StoredUserTotals>();
        if (!totals) throw new Error(`the customers' totals of the sales summary ${summary._id} are missing`);
        text = totals.users;
      }
      this.usersRead = { through: summary._id, users: usersOf(text) };
    }
    return this.usersRead.users;
  }

  /** The sales of the hours after `after` (every one when null) through `through`. */
  private async salesBetween(after: string | null, through: string): Promise<SaleRow[]> {
    const hours: string[] = [];
    if (after !== null) {
      for (let h = hourAfter(after); h <= through && hours.length <= HOURS_READ_APART; h = hourAfter(h)) {
        hours.push(h);
      }
    }
    if (after === null || hours.length > HOURS_READ_APART) {
      const all = await this.source.allSales();
      return all.filter((s) => s.saleHour && (after === null || s.saleHour > after) && s.saleHour <= through);
    }
    return (await Promise.all(hours.map((h) => this.source.salesIn(h)))).flat();
  }

  /**
   * Sums the hours that are over (their grace period included) into a new summary; none while
   * a confirmation of one of them has not reached its payment. Safe to run on every instance
   * at once. Answers the last hour summed, if it summed any.
   */
  async close(now = new Date()): Promise<string | undefined> {
    if (this.closing) return undefined;
    this.closing = true;
    try {
      const last = await this.latest();
      // A confirmation that has not reached its payment yet holds its hour back.
      const hours = await hoursToClose(
        last?._id,
        { first: () => this.source.firstPaymentAt(), pending: () => this.source.earliestUnapplied() },
        SALE_GRACE_MS,
        now,
      );
      if (!hours) return undefined;
      const { after, through } = hours;

      const sales = await this.salesBetween(last ? after : null, through);
      const summary = sum(last ?? { _id: after, total: 0, hours: {}, users: new Map() }, sales, through);
      // The totals first: a summary is read only with them.
      await insertOnce(this.userTotals, { _id: through, users: usersText(summary.users) });
      await insertOnce(this.summaries, {
        _id: through,
        total: summary.total,
        hours: JSON.stringify(summary.hours),
      });
      const kept = hourKey(new Date(now.getTime() - KEPT_SUMMARIES_MS));
      const older = { _id: { $lt: kept < through ? kept : through } };
      await this.summaries.deleteMany(older);
      await this.userTotals.deleteMany(older);
      return through;
    } finally {
      this.closing = false;
    }
  }

  /** The figures at `now`: total, the last 7 days, since the 1st of the month, and per customer. */
  async figures(now = new Date()): Promise<SaleFigures> {
    const sales = await this.current(now);
    return { ...(await this.sums(sales, now)), users: customerTotals(sales) };
  }

  /** Total, weekly and monthly sales at `now` (the admin home), without the customers' totals. */
  async totals(now = new Date()): Promise<Omit<SaleFigures, 'users'>> {
    return this.sums(await this.current(now), now);
  }

  /** Each customer's sales total at `now` (the discounts page), without the period sums. */
  async users(now = new Date()): Promise<Map<string, number>> {
    return customerTotals(await this.current(now));
  }

  /** The latest summary and the sales after it, through the hour of `now`. */
  private async current(now: Date): Promise<CurrentSales> {
    const last = await this.latest();
    return { last, open: await this.salesBetween(last?._id ?? null, hourKey(now)) };
  }

  private async sums({ last, open }: CurrentSales, now: Date) {
    const weekStart = now.getTime() - 7 * DAY_MS;
    const monthStart = startOfDisplayMonth(now).getTime();
    const figures = { total: last?.total ?? 0, weekly: 0, monthly: 0 };
    if (last) {
      // Whole hours from their amounts; the hour the week starts within, from its sales.
      for (const [hour, amount] of Object.entries(last.hours)) {
        if (hourStart(hour) >= weekStart) figures.weekly += amount;
        if (hourStart(hour) >= monthStart) figures.monthly += amount;
      }
      const weekHour = hourKey(new Date(weekStart));
      if (hourStart(weekHour) < weekStart && weekHour <= last._id && last.hours[weekHour]) {
        for (const sale of await this.source.salesIn(weekHour)) {
          if ((sale.decidedAt?.getTime() ?? 0) >= weekStart) figures.weekly += sale.amount;
        }
      }
    }
    for (const sale of open) {
      const at = sale.decidedAt?.getTime() ?? 0;
      figures.total += sale.amount;
      if (at >= weekStart) figures.weekly += sale.amount;
      if (at >= monthStart) figures.monthly += sale.amount;
    }
    return figures;
  }
}

/** The customers' totals of the latest summary, with the sales after it added. */
function customerTotals({ last, open }: CurrentSales): Map<string, number> {
  const users = new Map(last?.users);
  for (const sale of open) users.set(sale.userId, (users.get(sale.userId) ?? 0) + sale.amount);
  return users;
}

/** The summary through `through`: `last` and the sales of the hours after it. */
function sum(last: SaleSummary, sales: SaleRow[], through: string): SaleSummary {
  const keptFrom = hourKey(new Date(hourStart(through) - KEPT_HOURS_MS));
  const hours: Record<string, number> = {};
  for (const [hour, amount] of Object.entries(last.hours)) if (hour >= keptFrom) hours[hour] = amount;
  const users = new Map(last.users);
  let total = last.total;
  for (const sale of sales) {
    total += sale.amount;
    const hour = sale.saleHour!;
    if (hour >= keptFrom) hours[hour] = (hours[hour] ?? 0) + sale.amount;
    users.set(sale.userId, (users.get(sale.userId) ?? 0) + sale.amount);
  }
  return { _id: through, total, hours, users };
}
