import {
  carriesEvents,
  conflict,
  HttpError,
  isDuplicateKey,
  keepRecent,
  keyReused,
  raiseTo,
  type DocumentLocks,
  type EventEnvelope,
  type Outbox,
} from '@raseed/kit';
import type IORedis from 'ioredis';
import { Schema, Types, type Connection, type Model } from 'mongoose';
import { debtChanged, InsufficientBalance, movementKeys, orderVoid } from '../domain/rules';
import { entryEvents } from '../events/published';

/**
 * One account per user, kept as an append-only chain of entries: unique (account, seq)
 * and a unique idempotency key. Each entry carries the balance and debt after it, so an
 * account's state is its last entry's. Entries are never updated: each carries its events
 * from its insert (ARCHITECTURE rule 11, see Outbox). A void entry claims an order's debit
 * key and moves nothing: whichever of the void and the debit is inserted first is the
 * order's fate (ARCHITECTURE rule 11).
 */
const entrySchema = new Schema(
  {
    account: { type: String, required: true },
    seq: { type: Number, required: true },
    key: { type: String, required: true },
    kind: { type: String, enum: ['open', 'movement', 'debt', 'void'], required: true },
    type: { type: String, enum: ['IN', 'OUT'] },
    /** Micro-dollars moved, never negative; `type` says which way. */
    amount: { type: Number, required: true },
    balance: { type: Number, required: true },
    debtChange: { type: Number, required: true },
    debt: { type: Number, required: true },
    productName: { type: String, default: '' },
    status: { type: String, default: 'confirmed' },
    /** What the request that chose the key asked for (requestFingerprint): a repeat must ask the same. */
    fingerprint: { type: String },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
entrySchema.plugin(carriesEvents);
entrySchema.index({ account: 1, seq: 1 }, { unique: true });
entrySchema.index({ key: 1 }, { unique: true });

export interface LedgerEntry {
  _id: Types.ObjectId;
  account: string;
  seq: number;
  key: string;
  kind: 'open' | 'movement' | 'debt' | 'void';
  type?: 'IN' | 'OUT';
  amount: number;
  balance: number;
  debtChange: number;
  debt: number;
  productName: string;
  status: string;
  fingerprint?: string;
  createdAt: Date;
}
export type EntryModel = Model<LedgerEntry>;

export function entryModel(conn: Connection): EntryModel {
  return (
    (conn.models.Entry as EntryModel | undefined) ?? conn.model<LedgerEntry>('Entry', entrySchema, 'entries')
  );
}

export interface Movement {
  account: string;
  key: string;
  kind: 'movement' | 'debt' | 'void';
  type?: 'IN' | 'OUT';
  /** Micro-dollars, 0 for a debt change alone or a void. */
  amount: number;
  debt?: { add: number } | { set: number };
  /** The debt (micro-dollars) the admin saw: when the account's debt is no longer that, nothing moves. */
  expectedDebt?: number;
  /** requestFingerprint of the request behind the key; a repeat of the key that differs is refused. */
  fingerprint?: string;
  productName: string;
  status?: string;
  /** Events of another service that this movement decides (an order's order.placed), carried with its own. */
  announce?: EventEnvelope[];
}

/** `applied` is false when the key was already recorded: the entry is then the first result. */
export interface MovementResult {
  entry: LedgerEntry;
  applied: boolean;
}

const MAX_ATTEMPTS = 200;
/** The most movements of one account written in one turn of its lock (see Ledger.move). */
const MOST_AT_ONCE = 100;

/**
 * A movement waiting in this process for its account's writer, with the id its entry gets
 * however often it is chained: an entry under that id was inserted by this call, whatever the
 * store answered the insert (see firstResult).
 */
interface Waiting {
  m: Movement;
  id: Types.ObjectId;
  resolve: (result: MovementResult) => void;
  reject: (err: unknown) => void;
}

/** What a movement changes, chained onto `last`. */
function change(m: Movement, last: LedgerEntry) {
  const signed = m.type === 'OUT' ? -m.amount : m.type === 'IN' ? m.amount : 0;
  const debtChange = !m.debt ? 0 : 'set' in m.debt ? m.debt.set - last.debt : m.debt.add;
  return { balance: last.balance + signed, debtChange, debt: last.debt + debtChange };
}

/**
 * Why a movement may not chain onto `last`, or null. Checked against the entry it chains onto,
 * so a change that lands first is seen on the retry.
 */
function refusalOn(m: Movement, last: LedgerEntry): HttpError | null {
  if (m.expectedDebt !== undefined && last.debt !== m.expectedDebt) return debtChanged();
  const after = change(m, last);
  return after.balance < 0 || after.debt < 0 ? new InsufficientBalance(last.balance) : null;
}

/** The entry that records `m` after `last`. */
function entryAfter(last: LedgerEntry, m: Movement, id: Types.ObjectId): LedgerEntry {
  return {
    _id: id,
    account: m.account,
    seq: last.seq + 1,
    key: m.key,
    kind: m.kind,
    type: m.type,
    amount: m.amount,
    ...change(m, last),
    productName: m.productName,
    status: m.status ?? 'confirmed',
    fingerprint: m.fingerprint,
    createdAt: new Date(),
  };
}
/** Accounts whose last entry this process remembers (the most recently written or read). */
const HEADS_KEPT = 10_000;

export class Ledger {
  /**
   * The last entry this process wrote or read of each recently active account. Entries never
   * change, so when the hint names no newer one the remembered entry is not read again; a newer
   * entry written elsewhere moves the hint past it, and an insert on a stale head fails its
   * unique seq. (A store restored under a running process would mislead it: restores are made
   * into a stopped store, OPERATIONS.md.)
   */
  private readonly heads = new Map<string, LedgerEntry>();
  /** Movements waiting in this process for their account's writer, by account (see move). */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(
    readonly entries: EntryModel,
    private readonly locks: DocumentLocks,
    private readonly redis: IORedis,
    private readonly outbox: Outbox,
  ) {}

  /**
   * Dollars moved so far (micro-dollars), by what moved them: top-ups and admins' credits,
   * admins' withdrawals, order debits and refunds. Read for the operators' metrics.
   */
  async totals(): Promise<Record<'credits' | 'withdrawals' | 'debits' | 'refunds', number>> {
    const sum = async (type: 'IN' | 'OUT', key: RegExp) => {
      const [row] = await this.entries.aggregate<{ total: number }>([
        { $match: { kind: 'movement', type, key } },
        { $group: { _id: null, total: { $sum: '$amount' } } },
      ]);
      return row?.total ?? 0;
    };
    const [credits, withdrawals, debits, refunds] = await Promise.all([
      sum('IN', /^payment:/),
      sum('OUT', /^payment:/),
      sum('OUT', /^order:.*:debit$/),
      sum('IN', /^order:.*:refund$/),
    ]);
    return { credits, withdrawals, debits, refunds };
  }

  /**
   * Records a movement once per key: read the last entry, check it, insert seq + 1. A
   * duplicate seq means another writer got there first, so read on and try again; a
   * duplicate key means the movement was recorded before, and its first result is the
   * answer. The per-account lock only saves retries: the unique indexes decide. A refusal
   * (a short balance, a debt changed meanwhile) is only ever given on the true last entry,
   * never on the hint.
   *
   * The movements of one account that wait in this process meanwhile are written together by
   * the next holder of the lock: chained one onto the other and inserted in one ordered call,
   * which stops at the first that a unique key refuses (see moveAll). One busy account then
   * costs a lock and two inserts per batch rather than per movement.
   */
  move(m: Movement): Promise<MovementResult> {
    return new Promise((resolve, reject) => {
      const line = this.waiting.get(m.account);
      const waiting = { m, id: new Types.ObjectId(), resolve, reject };
      if (line) {
        line.push(waiting);
        return;
      }
      this.waiting.set(m.account, [waiting]);
      void this.write(m.account);
    });
  }

  /** Writes the account's waiting movements, a batch per turn of the lock, until none waits. */
  private async write(account: string): Promise<void> {
    const line = this.waiting.get(account)!;
    while (line.length) {
      const batch = line.splice(0, MOST_AT_ONCE);
      try {
        // The hint is read as the lock is taken, in the same round trip (see last()).
        await this.locks.run(
          this.entries,
          account,
          (hinted) => this.moveAll(account, batch, hinted),
          this.hintKey(account),
        );
      } catch (err) {
        // Those answered already keep their answer.
        for (const waiting of batch) waiting.reject(err);
      }
    }
    this.waiting.delete(account);
  }

  /** Records the batch's movements in order, answering each (see move). */
  private async moveAll(account: string, batch: Waiting[], hinted: string | null): Promise<void> {
    let last = await this.last(account, { verified: false, hinted });
    /** Keys this batch has recorded or found recorded: a repeat among them is answered by the first. */
    const decided = new Set<string>();
    let next = 0;
    for (let lost = 0; next < batch.length;) {
      const waiting = batch[next]!;
      if (decided.has(waiting.m.key)) {
        next++;
        await this.answerFirst(waiting);
        continue;
      }
      // The movements that chain onto the last entry as it stands, up to the first refused.
      const chain: LedgerEntry[] = [];
      const keys = new Set<string>();
      for (const { m, id } of batch.slice(next)) {
        const head = chain.at(-1) ?? last;
        if (keys.has(m.key) || decided.has(m.key) || refusalOn(m, head)) break;
        keys.add(m.key);
        chain.push(entryAfter(head, m, id));
      }
      if (!chain.length) {
        // Refused: the hint may lag behind the chain, so walk on, and refuse only on the true last entry.
        const following = await this.entries.findOne({ account, seq: last.seq + 1 }).lean<LedgerEntry>();
        if (following) {
          last = following;
          continue;
        }
        next++;
        await this.answerFirst(waiting, refusalOn(waiting.m, last)!);
        continue;
      }
      const { inserted, failure } = await this.outbox.createInOrder(
        this.entries,
        chain.map((entry, i) => ({
          record: entry,
          events: [...entryEvents(entry), ...(batch[next + i]!.m.announce ?? [])],
          key: { account, seq: entry.seq },
        })),
      );
      for (const entry of chain.slice(0, inserted)) {
        batch[next++]!.resolve({ entry, applied: true });
        decided.add(entry.key);
      }
      if (inserted) {
        last = chain[inserted - 1]!;
        this.remember(last);
        // Not waited for: it is sent ahead of the lock's release on the same connection, so the
        // next writer, who reads the hint as it takes the lock, reads it moved on.
        void this.advanceHint(account, last.seq);
      }
      if (inserted === chain.length) continue;
      if (++lost >= MAX_ATTEMPTS) throw new HttpError(503, 'The wallet is busy. Please try again.');
      // Another writer's record stopped the call before these: they are tried again.
      if (!failure) continue;
      if (!failure.duplicate) throw failure.err;
      // Recorded before under its key (its first result answers), or its seq taken by another writer.
      const stopped = batch[next]!;
      let first: MovementResult | null;
      try {
        first = await this.firstResult(stopped);
      } catch (err) {
        next++;
        stopped.reject(err);
        continue;
      }
      if (first) {
        next++;
        decided.add(stopped.m.key);
        stopped.resolve(first);
        continue;
      }
      last =
        (await this.entries.findOne({ account, seq: last.seq + 1 }).lean<LedgerEntry>()) ??
        (await this.last(account, { verified: true }));
    }
  }

  /**
   * Answers a waiting movement by its key's first result; a key with none is answered
   * `otherwise` (a refusal), or else is known to hold one (decided in this batch).
   */
  private answerFirst(waiting: Waiting, otherwise?: Error): Promise<void> {
    return this.firstResult(waiting).then(
      (first) => (first || !otherwise ? waiting.resolve(first!) : waiting.reject(otherwise)),
      waiting.reject,
    );
  }

  /**
   * The result of the movement's key as first recorded, or null when nothing is recorded under it.
   * An entry under the waiting movement's own id is this call's insert (applied): an insert the
   * store refused may have landed all the same (the driver reads a failure of the whole command
   * as a refusal of its first document), and a chain written again must not then answer its own
   * entry as a repeat.
   */
  private async firstResult({ m, id }: Waiting): Promise<MovementResult | null> {
    const first = await this.byKey(m.key);
    if (!first) return null;
    if (first._id.equals(id)) return { entry: first, applied: true };
    // An order's debit key holds its fate: a void answers whatever came first; a debit after a void moves nothing.
    if (m.kind === 'void') return { entry: first, applied: false };
    if (first.kind === 'void') throw orderVoid();
    if (m.fingerprint !== undefined && first.fingerprint !== m.fingerprint) throw keyReused();
    if (first.account !== m.account || first.amount !== m.amount || first.type !== m.type) {
      throw conflict('This operation was already recorded with different details.');
    }
    return { entry: first, applied: false };
  }

  byKey(key: string) {
    return this.entries.findOne({ key }).lean<LedgerEntry>();
  }

  /**
   * The account's last entry, opening the account when it has none. The newest seq is
   * remembered in Redis as a hint, so the entry is found by equality (the local store's
   * cheap query); `verified` also walks past entries whose writer has not moved the
   * hint yet. Without it, a stale hint only costs the movement a duplicate-seq retry.
   * `hinted` is the hint when the caller has read it already (as it took the account's lock).
   */
  async last(
    account: string,
    { verified, hinted }: { verified: boolean; hinted?: string | null },
  ): Promise<LedgerEntry> {
    // Without Redis there is no hint: the last entry is looked up in the store.
    const stored =
      hinted !== undefined ? hinted : await this.redis.get(this.hintKey(account)).catch(() => null);
    const hint = stored === null ? -1 : Number(stored);
    const known = this.heads.get(account);
    const head =
      known && known.seq >= hint
        ? known
        : hint >= 0
          ? await this.entries.findOne({ account, seq: hint }).lean<LedgerEntry>()
          : null;
    // A hint that names no entry (its database was replaced) is dropped, not trusted.
    if (!head && hint >= 0) await this.redis.del(this.hintKey(account)).catch(() => undefined);
    let entry: LedgerEntry =
      head ??
      (await this.entries.findOne({ account }).sort({ seq: -1 }).lean<LedgerEntry>()) ??
      (await this.open(account));
    let walked = false;
    while (verified) {
      const next: LedgerEntry | null = await this.entries
        .findOne({ account, seq: entry.seq + 1 })
        .lean<LedgerEntry>();
      if (!next) break;
      entry = next;
      walked = true;
    }
    if (walked || entry.seq !== hint) await this.advanceHint(account, entry.seq);
    this.remember(entry);
    return entry;
  }

  private remember(entry: LedgerEntry): void {
    const known = this.heads.get(entry.account);
    if (known && known.seq > entry.seq) return;
    keepRecent(this.heads, entry.account, entry, HEADS_KEPT);
  }

  /** Opens the account with an empty first entry; safe to repeat and to race. */
  async open(account: string): Promise<LedgerEntry> {
    try {
      const created = await this.entries.create({
        account,
        seq: 0,
        key: movementKeys.open(account),
        kind: 'open',
        amount: 0,
        balance: 0,
        debtChange: 0,
        debt: 0,
        createdAt: new Date(),
      });
      return created.toObject<LedgerEntry>();
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const first = await this.entries.findOne({ account, seq: 0 }).lean<LedgerEntry>();
      if (!first) throw err;
      return first;
    }
  }

  /** The account's money movements, newest first. */
  async transactions(account: string, page: number, limit: number) {
    const filter = { account, kind: 'movement' };
    const [items, total] = await Promise.all([
      this.entries
        .find(filter)
        .sort({ seq: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<LedgerEntry[]>(),
      this.entries.countDocuments(filter),
    ]);
    return { items, total };
  }

  /** Every account, for reconcile. */
  accounts(): Promise<string[]> {
    return this.entries.distinct('account');
  }

  /** An account's whole chain in order, for reconcile. */
  chain(account: string) {
    return this.entries.find({ account }).sort({ seq: 1 }).lean<LedgerEntry[]>();
  }

  /** Where the newest seq of an account is hinted (tests set it back to play a lagging hint). */
  hintKey(account: string) {
    return `raseed:wallet:${this.entries.db.name}:head:${account}`;
  }

  // The hint only moves forward, whichever writer sets it last; a hint Redis misses only costs a retry.
  private async advanceHint(account: string, seq: number): Promise<void> {
    await raiseTo(this.redis, this.hintKey(account), seq).catch(() => undefined);
  }
}
