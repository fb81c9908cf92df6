import { insertOnce, modelOf, outboxPlugin, withEvents, type DocumentLocks } from '@raseed/kit';
import { Schema, Types, type Connection, type FilterQuery } from 'mongoose';
import { orderConfirmed, orderPlaced, orderRejected } from '../events/published';

export type OrderStatus = 'waiting' | 'confirmed' | 'rejected';

export interface Order {
  _id: Types.ObjectId;
  userId: string;
  username: string;
  productId: string;
  productName: string;
  kind: 'created' | 'supplier';
  supplierId: string | null;
  quantity: number;
  /** Micro-dollars: the caller's unit price, and the total debited. */
  unitPrice: number;
  total: number;
  /** The spec's 'label:value' pairs joined by commas. */
  params: string;
  /** The same values by label, as the supplier takes them. */
  fields: Record<string, string>;
  status: OrderStatus;
  /**
   * False until the wallet's debit is known: unpaid orders are not shown and are finished
   * or undone by the repair. `failed` marks one the wallet refused (its answer is kept).
   */
  paid: boolean;
  failed: { status: number; error: string } | null;
  /** What the customer reads with the order: the supplier's reply or the admin's text. */
  replay: string | null;
  /** The supplier's order id. */
  externalId: string | null;
  reason: string | null;
  createdAt: Date;
  decidedAt: Date | null;
}

const orderSchema = new Schema(
  {
    userId: { type: String, required: true },
    username: { type: String, required: true },
    productId: { type: String, required: true },
    productName: { type: String, required: true },
    kind: { type: String, enum: ['created', 'supplier'], required: true },
    supplierId: { type: String, default: null },
    quantity: { type: Number, required: true },
    unitPrice: { type: Number, required: true },
    total: { type: Number, required: true },
    params: { type: String, default: '' },
    fields: { type: Schema.Types.Mixed, default: {} },
    status: { type: String, enum: ['waiting', 'confirmed', 'rejected'], required: true },
    paid: { type: Boolean, required: true },
    failed: { type: Schema.Types.Mixed, default: null },
    replay: { type: String, default: null },
    externalId: { type: String, default: null },
    reason: { type: String, default: null },
    createdAt: { type: Date, required: true },
    decidedAt: { type: Date, default: null },
  },
  // minimize: false keeps an empty `fields` ({}) rather than dropping it.
  { versionKey: false, minimize: false },
);
orderSchema.plugin(outboxPlugin);
orderSchema.index({ userId: 1 });
orderSchema.index({ status: 1 });
orderSchema.index({ paid: 1 });

/**
 * A decision taken once (rule 9): the insert of a record keyed by the order id. The order's
 * status merely follows it; `applied` lets the repair finish one whose effects were cut off.
 */
const decisionSchema = new Schema(
  {
    _id: String,
    action: { type: String, enum: ['confirmed', 'rejected'], required: true },
    replay: { type: String, default: null },
    reason: { type: String, default: null },
    by: { type: String, required: true },
    at: { type: Date, required: true },
    applied: { type: Boolean, required: true },
  },
  { versionKey: false },
);
decisionSchema.index({ applied: 1 });

/** A supplier placement attempted under the order's id: recorded before the supplier is called. */
const placementSchema = new Schema(
  { _id: String, at: { type: Date, required: true } },
  { versionKey: false },
);

export interface Decision {
  _id: string;
  action: 'confirmed' | 'rejected';
  replay: string | null;
  reason: string | null;
  by: string;
  at: Date;
  applied: boolean;
}

export function orderModels(conn: Connection) {
  return {
    Order: modelOf<Order>(conn, 'Order', orderSchema, 'orders'),
    Decision: modelOf<Decision>(conn, 'Decision', decisionSchema, 'order_decisions'),
    Placement: modelOf<{ _id: string; at: Date }>(conn, 'Placement', placementSchema, 'order_placements'),
  };
}
export type OrderModels = ReturnType<typeof orderModels>;

export type NewOrder = Omit<
  Order,
  '_id' | 'status' | 'paid' | 'failed' | 'replay' | 'externalId' | 'reason' | 'createdAt' | 'decidedAt'
>;

export class OrderStore {
  constructor(
    readonly models: OrderModels,
    private readonly locks: DocumentLocks,
  ) {}

  findById(id: string) {
    return Types.ObjectId.isValid(id) ? this.models.Order.findById(id).lean<Order>() : Promise.resolve(null);
  }

  /**
   * Records the order before any money moves, unpaid (not shown) until the wallet's debit is
   * known. Inserted under its id, so an id already taken (a repeated Idempotency-Key) answers
   * the order recorded first instead.
   */
  async open(id: string, input: NewOrder): Promise<{ first: boolean; order: Order }> {
    const { first, record } = await insertOnce(this.models.Order, {
      ...input,
      _id: new Types.ObjectId(id),
      status: 'waiting',
      paid: false,
      failed: null,
      replay: null,
      externalId: null,
      reason: null,
      createdAt: new Date(),
      decidedAt: null,
    });
    return { first, order: record };
  }

  /** The wallet took the money: the order is shown and announced. */
  async markPaid(order: Order): Promise<Order> {
    const paid = { ...order, paid: true };
    await this.locks.run(this.models.Order, order._id, () =>
      this.models.Order.updateOne(
        { _id: order._id, paid: false },
        withEvents({ $set: { paid: true } }, orderPlaced(paid)),
      ),
    );
    return paid;
  }

  /** The wallet refused the debit (for example a short balance): the order stays unshown with that answer. */
  async markFailed(order: Order, failed: { status: number; error: string }): Promise<void> {
    await this.models.Order.updateOne({ _id: order._id }, { $set: { failed } });
  }

  /** Records that the supplier took the order (its id and first reply). */
  async markPlaced(id: Types.ObjectId, externalId: string, replay: string | null): Promise<void> {
    await this.locks.run(this.models.Order, id, () =>
      this.models.Order.updateOne({ _id: id }, { $set: { externalId, ...(replay && { replay }) } }),
    );
  }

  /** Records that the supplier is about to be asked to place the order; false when it was asked before. */
  async recordPlacement(orderId: string): Promise<boolean> {
    return (await insertOnce(this.models.Placement, { _id: orderId, at: new Date() })).first;
  }

  /** Paid supplier orders not yet taken by the supplier, placed more than `olderThanMs` ago. */
  async awaitingPlacement(olderThanMs: number): Promise<Order[]> {
    const list = await this.models.Order.find({ status: 'waiting', kind: 'supplier', externalId: null }).lean<
      Order[]
    >();
    return list.filter((o) => o.paid && o.createdAt.getTime() < Date.now() - olderThanMs);
  }

  /** Waiting orders the supplier took, whose outcome it has not told us yet. */
  async awaitingSupplier(): Promise<Order[]> {
    const list = await this.models.Order.find({ status: 'waiting', kind: 'supplier' }).lean<Order[]>();
    return list.filter((o) => o.paid && o.externalId !== null);
  }

  /** Inserts the decision on an order; answers it, or the earlier one when someone decided first. */
  async decide(
    orderId: string,
    decision: Omit<Decision, '_id' | 'at' | 'applied'>,
  ): Promise<{ decided: true; decision: Decision } | { decided: false; earlier: Decision }> {
    const { first, record } = await insertOnce(this.models.Decision, {
      _id: orderId,
      ...decision,
      at: new Date(),
      applied: false,
    });
    return first ? { decided: true, decision: record } : { decided: false, earlier: record };
  }

  /** Moves the order's status to follow its decision, with its event; safe to repeat. */
  async follow(decision: Decision): Promise<Order | null> {
    const id = new Types.ObjectId(decision._id);
    const updated = await this.locks.run(this.models.Order, id, async () => {
      const order = await this.models.Order.findById(id).lean<Order>();
      if (!order) return null;
      if (order.status === 'waiting') {
        const replay = decision.replay ?? order.replay;
        const event =
          decision.action === 'confirmed'
            ? orderConfirmed(order, replay)
            : orderRejected(order, decision.reason);
        const set = { status: decision.action, decidedAt: decision.at, replay, reason: decision.reason };
        await this.models.Order.updateOne({ _id: id }, withEvents({ $set: set }, event));
        return { ...order, ...set };
      }
      return order;
    });
    await this.models.Decision.updateOne({ _id: decision._id }, { $set: { applied: true } });
    return updated;
  }

  /** Decisions whose effects were cut off, older than `ms`. */
  unapplied(olderThanMs: number) {
    return this.models.Decision.find({ applied: false })
      .lean<Decision[]>()
      .then((list) => list.filter((d) => d.at.getTime() < Date.now() - olderThanMs));
  }

  /** Orders whose payment is not known yet, older than `ms` (their placement was cut off). */
  async unpaid(olderThanMs: number): Promise<Order[]> {
    const list = await this.models.Order.find({ paid: false }).lean<Order[]>();
    return list.filter((o) => !o.failed && o.createdAt.getTime() < Date.now() - olderThanMs);
  }

  list(filter: FilterQuery<Order>, page: number, limit: number) {
    const query = { ...filter, paid: true };
    return Promise.all([
      this.models.Order.find(query)
        .sort({ createdAt: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<Order[]>(),
      this.models.Order.countDocuments(query),
    ]);
  }

  count(filter: FilterQuery<Order> = {}) {
    return this.models.Order.countDocuments({ ...filter, paid: true });
  }
}
