import { isDuplicateKey, type DocumentLocks } from '@raseed/kit';
import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';
import type { User, UserFigures, UserModel } from './users';

/** One confirmed top-up (a sale), as the Users List counts it: one record per payment. */
const saleSchema = new Schema(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    amount: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
saleSchema.index({ userId: 1, at: 1 });

type Sale = InferSchemaType<typeof saleSchema>;

/**
 * The Users List's money figures, kept by auth as a read model of the wallet's and
 * payments' events so the list is answered without calling other services.
 */
export class FiguresStore {
  readonly sales: Model<Sale>;

  constructor(
    mongo: Connection,
    private readonly users: UserModel,
    private readonly locks: DocumentLocks,
  ) {
    this.sales =
      (mongo.models.Sale as Model<Sale> | undefined) ?? mongo.model<Sale>('Sale', saleSchema, 'sales');
  }

  /** Records a sale once: a redelivered payment.confirmed hits the payment id already stored. */
  async recordSale(sale: { paymentId: string; userId: string; amount: number; at: Date }): Promise<void> {
    try {
      await this.sales.create({ _id: sale.paymentId, userId: sale.userId, amount: sale.amount, at: sale.at });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** Applies the wallet's debt after its ledger entry `seq`; an older or repeated entry changes nothing. */
  async setDebt(userId: string, debt: number, seq: number): Promise<void> {
    await this.locks.run(this.users, userId, () =>
      this.users.updateOne(
        { _id: userId, $or: [{ debtSeq: { $lt: seq } }, { debtSeq: null }] },
        { $set: { debt, debtSeq: seq } },
      ),
    );
  }

  /** The figures of the given users, each counted from the sales since their own discount date. */
  async of(users: Pick<User, '_id' | 'salesSince'>[]): Promise<Map<string, UserFigures>> {
    const ids = users.map((u) => u._id.toString());
    const figures = new Map<string, UserFigures>(ids.map((id) => [id, { sales: 0, salesSinceDiscount: 0 }]));
    if (!ids.length) return figures;
    const since = new Map(users.map((u) => [u._id.toString(), u.salesSince?.getTime() ?? 0]));
    // One lookup a user: the local store serves an equality on userId from its index, but not a
    // list of them ($in read every sale: 10 s for a page of users among 200,000 sales).
    const sales = await Promise.all(
      ids.map((userId) =>
        this.sales
          .find({ userId })
          .select({ userId: 1, amount: 1, at: 1 })
          .lean<Pick<Sale, 'userId' | 'amount' | 'at'>[]>(),
      ),
    );
    for (const sale of sales.flat()) {
      const f = figures.get(sale.userId);
      if (!f) continue;
      f.sales += sale.amount;
      if (sale.at.getTime() >= (since.get(sale.userId) ?? 0)) f.salesSinceDiscount += sale.amount;
    }
    return figures;
  }
}
