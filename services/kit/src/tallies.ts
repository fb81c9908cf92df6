import { Schema, type Connection, type Model } from 'mongoose';
import { insertOnce, modelOf } from './mongo';
import { hourAfter, hourKey, hoursToClose, hourStart } from './paging';

const HOUR_MS = 3600_000;
/**
 * An hour is counted this long after it ended. A record belongs to the hour stamped on it just
 * before its insert; one inserted later than this after its stamp (its process paused that long
 * between the two) is left out of the count.
 */
const GRACE_MS = 10 * 60_000;
/** Past this many hours after the latest tally, the figure is counted whole instead (a store without tallies yet). */
const HOURS_READ_APART = 48;
/** Hours counted side by side when many are (a store's first tally over its history). */
const HOURS_AT_ONCE = 8;
/** Tallies older than this are deleted (the latest is always kept). */
const KEPT_TALLIES_MS = 24 * HOUR_MS;

/**
 * The records counted through one hour, once that hour is over: inserted under the hour's key
 * (rule 9), so instances that count it at the same moment agree on one record. The count is
 * stored under a field each store names (the orders' tallies have always called it `paid`).
 */
export interface HourTally {
  _id: string;
  [field: string]: unknown;
}

/** A model of tallies whose count is stored under `field`. */
export const tallyModel = (conn: Connection, name: string, collection: string, field: string) =>
  modelOf<HourTally>(
    conn,
    name,
    new Schema({ _id: String, [field]: { type: Number, required: true } }, { versionKey: false }),
    collection,
  );

/** What the tallies count, by the hour each record is stamped with. */
export interface TallySource {
  /** How many of the hour's records count. */
  countIn(hour: string): Promise<number>;
  /** When the first record was made, if any. */
  firstAt(): Promise<Date | undefined>;
  /** When the earliest record whose hour may still change was made, if any: its hour waits. */
  earliestPending(): Promise<Date | undefined>;
  /**
   * How many records made before `end` count, for a first tally: given when some records may
   * carry no hour (made before they had one), so the first tally counts them by their time.
   */
  countBefore?(end: Date): Promise<number>;
}

/** The hours after `after` through `through`, oldest first. */
function hoursBetween(after: string, through: string): string[] {
  const hours: string[] = [];
  for (let h = hourAfter(after); h <= through; h = hourAfter(h)) hours.push(h);
  return hours;
}

/**
 * A count kept without counting every record: the latest tally plus the records of the hours
 * after it (the current one and the grace period), each counted by its hour's index. The local
 * store counts a million records in 150 ms and one hour's in a few.
 */
export class HourTallies {
  private closing = false;
  /** The field the model stores its count under (tallyModel's `field`). */
  private readonly field: string;

  constructor(
    private readonly tallies: Model<HourTally>,
    private readonly source: TallySource,
  ) {
    this.field = Object.keys(tallies.schema.paths).find((path) => path !== '_id')!;
  }

  private async latest(): Promise<{ _id: string; count: number } | null> {
    const last = await this.tallies.findOne().sort({ _id: -1 }).lean<HourTally>();
    return last && { _id: last._id, count: last[this.field] as number };
  }

  private async countIn(hours: string[]): Promise<number> {
    let count = 0;
    for (let i = 0; i < hours.length; i += HOURS_AT_ONCE) {
      const counts = await Promise.all(hours.slice(i, i + HOURS_AT_ONCE).map((h) => this.source.countIn(h)));
      count += counts.reduce((sum, n) => sum + n, 0);
    }
    return count;
  }

  /**
   * Counts the hours that are over (their grace period included) into a new tally; none while
   * a record of one of them is still pending. Safe to run on every instance at once. Answers
   * the last hour counted, if it counted any.
   */
  async close(now = new Date()): Promise<string | undefined> {
    if (this.closing) return undefined;
    this.closing = true;
    try {
      const last = await this.latest();
      const hours = await hoursToClose(
        last?._id,
        { first: () => this.source.firstAt(), pending: () => this.source.earliestPending() },
        GRACE_MS,
        now,
      );
      if (!hours) return undefined;
      const { after, through } = hours;
      const count =
        !last && this.source.countBefore
          ? await this.source.countBefore(new Date(hourStart(through) + HOUR_MS))
          : (last?.count ?? 0) + (await this.countIn(hoursBetween(after, through)));
      await insertOnce(this.tallies, { _id: through, [this.field]: count });
      const kept = hourKey(new Date(now.getTime() - KEPT_TALLIES_MS));
      await this.tallies.deleteMany({ _id: { $lt: kept < through ? kept : through } });
      return through;
    } finally {
      this.closing = false;
    }
  }

  /**
   * The count at `now`, or undefined when no tally is recent enough (the caller counts the
   * records whole). The hour after the current one is counted too, for an instance whose clock
   * runs ahead.
   */
  async count(now = new Date()): Promise<number | undefined> {
    const last = await this.latest();
    if (!last) return undefined;
    const open = hoursBetween(last._id, hourKey(new Date(now.getTime() + HOUR_MS)));
    if (open.length > HOURS_READ_APART) return undefined;
    return last.count + (await this.countIn(open));
  }
}
