import { insertNew, isDuplicateKey, modelOf } from '@raseed/kit';
import { Schema, type Connection } from 'mongoose';

/**
 * What the admins have not been told of yet, keyed by its event's id: a new waiting top-up or
 * order, an order a supplier disputed, an order stuck at the supplier.
 */
export interface DigestItem {
  _id: string;
  kind: 'top-up' | 'order' | 'disputed' | 'stuck';
  /** The payment's or the order's id. */
  ref: string;
  /** The customer's id; none for a dispute, which names the order only. */
  userId: string;
  /** The top-up's method, the order's product and quantity, or what the supplier did. */
  what: string;
  /** Micro-dollars. */
  amount: number;
  at: Date;
  /** Follows the item's claim once its digest is queued; the claim is what decides. */
  sent: boolean;
}

/** The digest an item went out in, decided once by this insert (rule 9), keyed by the item's id. */
export interface DigestClaim {
  _id: string;
  digestId: string;
  at: Date;
}

const itemSchema = new Schema(
  {
    _id: { type: String },
    kind: { type: String, enum: ['top-up', 'order', 'disputed', 'stuck'], required: true },
    ref: { type: String, required: true },
    userId: { type: String, default: '' },
    what: { type: String, required: true },
    amount: { type: Number, required: true },
    at: { type: Date, required: true },
    sent: { type: Boolean, default: false },
  },
  { versionKey: false },
);
itemSchema.index({ sent: 1, at: 1 });

const claimSchema = new Schema(
  {
    _id: { type: String },
    digestId: { type: String, required: true, index: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);

/** The most items one digest run looks at; the rest wait for the next run. */
const RUN_SIZE = 500;

export class DigestStore {
  readonly items;
  readonly claims;

  constructor(conn: Connection) {
    this.items = modelOf<DigestItem>(conn, 'DigestItem', itemSchema, 'digest_items');
    this.claims = modelOf<DigestClaim>(conn, 'DigestClaim', claimSchema, 'digest_claims');
  }

  async init(): Promise<void> {
    await Promise.all([this.items.init(), this.claims.init()]);
  }

  /** Records an item once: a redelivered event finds its item there already. */
  async record(item: Omit<DigestItem, 'sent'>): Promise<void> {
    await this.items.create({ ...item, sent: false }).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err;
    });
  }

  /** The oldest items not yet known to be sent. */
  pending(): Promise<DigestItem[]> {
    return this.items.find({ sent: false }).sort({ at: 1, _id: 1 }).limit(RUN_SIZE).lean<DigestItem[]>();
  }

  /** Claims the items for the digest; an item another digest claimed first stays with that one. */
  async claim(itemIds: string[], digestId: string, at: Date): Promise<void> {
    await insertNew(
      this.claims,
      itemIds.map((_id) => ({ _id, digestId, at })),
    );
  }

  claimsOf(itemIds: string[]): Promise<DigestClaim[]> {
    return this.claims.find({ _id: { $in: itemIds } }).lean<DigestClaim[]>();
  }

  /** Every item the digest claimed, oldest first: what its e-mail tells, however often it is built. */
  async itemsOf(digestId: string): Promise<DigestItem[]> {
    const claims = await this.claims.find({ digestId }).select({ _id: 1 }).lean<Pick<DigestClaim, '_id'>[]>();
    return this.items
      .find({ _id: { $in: claims.map((c) => c._id) } })
      .sort({ at: 1, _id: 1 })
      .lean<DigestItem[]>();
  }

  async markSent(itemIds: string[]): Promise<void> {
    await this.items.updateMany({ _id: { $in: itemIds } }, { $set: { sent: true } });
  }
}
