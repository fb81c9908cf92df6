import { bumpVersion, insertNew, isDuplicateKey, modelOf, VersionedMemo } from '@raseed/kit';
import type IORedis from 'ioredis';
import { Schema, Types, type Connection } from 'mongoose';

/**
 * A code of a created product's stock (a gift card, a voucher): kept sealed (CodeVault), found
 * again by its digest, shown to admins only by its mask. Whether it is sold is decided by its
 * claim (below); `claimedBy` merely follows the claim, so a code it names may be free again
 * (its claim released) and one it does not name may be taken (the claim is the truth).
 */
export interface StockCode {
  _id: Types.ObjectId;
  productId: string;
  /** HMAC of the code within its product: a code uploaded twice is refused by a unique index. */
  digest: string;
  sealed: string;
  mask: string;
  expiresAt: Date | null;
  batchId: string;
  claimedBy: string | null;
  at: Date;
}

const codeSchema = new Schema(
  {
    productId: { type: String, required: true },
    digest: { type: String, required: true },
    sealed: { type: String, required: true },
    mask: { type: String, required: true },
    expiresAt: { type: Date, default: null },
    batchId: { type: String, required: true },
    claimedBy: { type: String, default: null },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
codeSchema.index({ productId: 1, digest: 1 }, { unique: true });
codeSchema.index({ productId: 1, claimedBy: 1 });

/**
 * A code sold to an order (rule 11: a code is sold or free by one insert). Keyed by the code's
 * id, so two orders never hold one code; one per slot of the order, so a retry of the same
 * order takes no more codes than its quantity.
 */
export interface CodeClaim {
  _id: string;
  orderId: string;
  productId: string;
  slot: number;
  at: Date;
}

const claimSchema = new Schema(
  {
    _id: String,
    orderId: { type: String, required: true },
    productId: { type: String, required: true },
    slot: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
claimSchema.index({ orderId: 1, slot: 1 }, { unique: true });
claimSchema.index({ productId: 1 });
claimSchema.index({ at: -1 });

/** Who uploaded which codes, and what came of the upload. */
export interface CodeBatch {
  _id: string;
  productId: string;
  by: string;
  username: string;
  added: number;
  duplicates: number;
  blank: number;
  at: Date;
}

const batchSchema = new Schema(
  {
    _id: String,
    productId: { type: String, required: true },
    by: { type: String, required: true },
    username: { type: String, required: true },
    added: { type: Number, required: true },
    duplicates: { type: Number, required: true },
    blank: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
batchSchema.index({ productId: 1, at: -1 });

export function codeModels(conn: Connection) {
  return {
    Code: modelOf<StockCode>(conn, 'StockCode', codeSchema, 'stock_codes'),
    Claim: modelOf<CodeClaim>(conn, 'CodeClaim', claimSchema, 'stock_claims'),
    Batch: modelOf<CodeBatch>(conn, 'CodeBatch', batchSchema, 'stock_batches'),
  };
}
export type CodeModels = ReturnType<typeof codeModels>;

export type NewCode = Pick<StockCode, 'digest' | 'sealed' | 'mask' | 'expiresAt'>;

/** How many codes a product has that can be sold, that were sold, and that expired unsold. */
export interface StockCounts {
  available: number;
  sold: number;
  expired: number;
}

const CLAIM_TRIES = 50;

/** The product's codes that can be sold at `now`: free, and not expired. */
export const sellable = (productId: string, now = new Date()) => ({
  productId,
  claimedBy: null,
  $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
});

export class CodeStore {
  /** Whether each product has codes, as every order of a created product asks; an upload moves it on. */
  private readonly stockedMemo: VersionedMemo<boolean>;

  constructor(
    readonly models: CodeModels,
    private readonly redis: IORedis,
    /** Moved on by every upload (see VersionedMemo). */
    private readonly versionKey: string,
  ) {
    this.stockedMemo = new VersionedMemo(redis, versionKey);
  }

  /** Whether the product sells from a stock of codes (one was ever uploaded). */
  stocked(productId: string): Promise<boolean> {
    return this.stockedMemo.get(
      productId,
      async () => (await this.models.Code.exists({ productId })) !== null,
    );
  }

  /** Adds an upload's codes; those the product has already (by digest) are counted, not added. */
  async add(
    batch: Omit<CodeBatch, 'added' | 'duplicates' | '_id' | 'at'>,
    codes: NewCode[],
  ): Promise<CodeBatch> {
    const batchId = new Types.ObjectId().toString();
    const at = new Date();
    // One digest once within the upload too: the index refuses the second either way.
    const unique = [...new Map(codes.map((c) => [c.digest, c])).values()];
    let duplicates = codes.length - unique.length;
    for (let i = 0; i < unique.length; i += 1000) {
      const docs = unique
        .slice(i, i + 1000)
        .map((c) => ({ ...c, productId: batch.productId, batchId, claimedBy: null, at }));
      duplicates += (await insertNew(this.models.Code, docs, { lean: true })).size;
    }
    const record: CodeBatch = {
      ...batch,
      _id: batchId,
      added: codes.length - duplicates,
      duplicates,
      at,
    };
    await this.models.Batch.create(record);
    await bumpVersion(this.redis, this.versionKey);
    return record;
  }

  /**
   * Claims `quantity` free codes for the order, one insert under each code's id (rule 11); a
   * repeat for the same order answers the codes it holds already. Answers the claimed code ids,
   * fewer than asked when the stock ran out (the caller releases them).
   */
  async claim(orderId: string, productId: string, quantity: number): Promise<string[]> {
    const held = await this.claimsOf(orderId);
    const taken = new Set<string>();
    for (let tries = 0; held.length < quantity && tries < CLAIM_TRIES; tries++) {
      const free = await this.models.Code.find({
        ...sellable(productId),
        _id: { $nin: [...taken].map((id) => new Types.ObjectId(id)) },
      })
        .select({ _id: 1 })
        .limit(quantity - held.length + 8)
        .lean<{ _id: Types.ObjectId }[]>();
      if (!free.length) break;
      // Orders racing for the last codes start at different ones.
      free.sort(() => Math.random() - 0.5);
      for (const { _id } of free) {
        if (held.length >= quantity) break;
        const codeId = _id.toString();
        const slot = held.length;
        try {
          await this.models.Claim.create({ _id: codeId, orderId, productId, slot, at: new Date() });
          held.push(codeId);
          await this.models.Code.updateOne({ _id }, { $set: { claimedBy: orderId } });
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
          if ((err.keyPattern ?? {}).orderId) {
            // Another attempt of this order took the slot: start again from what it holds.
            held.splice(0, held.length, ...(await this.claimsOf(orderId)));
            break;
          }
          taken.add(codeId);
        }
      }
    }
    return held.slice(0, quantity);
  }

  /** The codes claimed for the order, in slot order. */
  async claimsOf(orderId: string): Promise<string[]> {
    const claims = await this.models.Claim.find({ orderId }).sort({ slot: 1 }).lean<CodeClaim[]>();
    return claims.map((c) => c._id);
  }

  /**
   * Frees the order's codes (its debit was refused, or it ran out of stock): each code shows
   * free first, then its claim goes, so a crash in between leaves a claim the repair releases.
   */
  async release(orderId: string): Promise<void> {
    const ids = await this.claimsOf(orderId);
    if (!ids.length) return;
    const codeIds = ids.map((id) => new Types.ObjectId(id));
    await this.models.Code.updateMany(
      { _id: { $in: codeIds }, claimedBy: orderId },
      { $set: { claimedBy: null } },
    );
    await this.models.Claim.deleteMany({ orderId });
  }

  /** The sealed codes the order holds, in slot order (its claimed code ids, when the caller knows them). */
  async sealedOf(orderId: string, claimed?: string[]): Promise<Pick<StockCode, 'sealed' | 'mask'>[]> {
    const ids = claimed ?? (await this.claimsOf(orderId));
    const codes = await this.models.Code.find({ _id: { $in: ids.map((id) => new Types.ObjectId(id)) } })
      .select({ sealed: 1, mask: 1 })
      .lean<StockCode[]>();
    const byId = new Map(codes.map((c) => [c._id.toString(), c]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** The orders that claimed codes since `since`: the repair checks they were paid and delivered, or released. */
  async recentClaimants(since: Date): Promise<string[]> {
    const claims = await this.models.Claim.find({ at: { $gte: since } })
      .select({ orderId: 1 })
      .lean<CodeClaim[]>();
    return [...new Set(claims.map((c) => c.orderId))];
  }

  async counts(productId: string): Promise<StockCounts> {
    const now = new Date();
    const [free, sold, expired] = await Promise.all([
      this.models.Code.countDocuments(sellable(productId, now)),
      this.models.Claim.countDocuments({ productId }),
      this.models.Code.countDocuments({ productId, claimedBy: null, expiresAt: { $lte: now } }),
    ]);
    return { available: free, sold, expired };
  }

  /** A page of the product's codes, newest first, with their masks and whom they were sold to. */
  page(productId: string, page: number, limit: number) {
    return Promise.all([
      this.models.Code.find({ productId })
        .select({ sealed: 0, digest: 0 })
        .sort({ at: -1, _id: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<Omit<StockCode, 'sealed' | 'digest'>[]>(),
      this.models.Code.countDocuments({ productId }),
    ]);
  }

  batches(productId: string) {
    return this.models.Batch.find({ productId }).sort({ at: -1 }).limit(20).lean<CodeBatch[]>();
  }
}
