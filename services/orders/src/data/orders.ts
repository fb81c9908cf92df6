import {
  carriesEvents,
  hourKey,
  HourTallies,
  insertOnce,
  modelOf,
  tallyModel,
  type DocumentLocks,
  type Outbox,
  type TallySource,
} from '@raseed/kit';
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
   * Follow the order's fate (OrderFate): false until the wallet's debit is known, so unpaid
   * orders are not shown; `failed` marks one whose debit key was voided, with the answer kept.
   */
  paid: boolean;
  failed: Failure | null;
  /** A digest of the request an Idempotency-Key placed it with (requestFingerprint). */
  fingerprint: string | null;
  /** Delivered from the product's stock of codes (data/codes.ts), the moment it is paid. */
  stocked: boolean;
  /** What the customer reads with the order: the supplier's reply or the admin's text. */
  replay: string | null;
  /** The supplier's order id. */
  externalId: string | null;
  reason: string | null;
  createdAt: Date;
  /** The hour it was placed in (hourKey of createdAt), by which the tallies count it. */
  hour: string;
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
    fingerprint: { type: String, default: null },
    stocked: { type: Boolean, default: false },
    replay: { type: String, default: null },
    externalId: { type: String, default: null },
    reason: { type: String, default: null },
    createdAt: { type: Date, required: true },
    hour: { type: String, required: true },
    decidedAt: { type: Date, default: null },
  },
  // minimize: false keeps an empty `fields` ({}) rather than dropping it.
  { versionKey: false, minimize: false },
);
orderSchema.index({ userId: 1 });
orderSchema.index({ status: 1 });
orderSchema.index({ paid: 1 });
orderSchema.index({ createdAt: -1 });
orderSchema.index({ hour: 1 });
orderSchema.index({ stocked: 1, status: 1 });
// Waiting supplier orders (placement repair, status sync, stuck list) without reading the waiting created ones.
orderSchema.index({ kind: 1, status: 1 });

export interface Failure {
  status: number;
  error: string;
}

/**
 * An unpaid order's fate, decided once (rule 11): paid when the wallet's debit holds the order's
 * debit key, void when a void holds it (the wallet refused the debit, or the repair gave up on a
 * cut-off placement first). The wallet's key decides. A placement the wallet paid keeps no record:
 * its debit carried order.placed, and the order's `paid` follows the debit's answer (PAID). This
 * record, keyed by the order id, holds the fates a void decides: the void itself, or the debit it
 * found holding the key (the repair's void, or a refused debit's behind another's), which the
 * record follows and announces again (the same event, by its id).
 */
const fateSchema = new Schema(
  {
    _id: String,
    fate: { type: String, enum: ['paid', 'void'], required: true },
    failed: { type: Schema.Types.Mixed, default: null },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
fateSchema.plugin(carriesEvents);

export interface OrderFate {
  _id: string;
  fate: 'paid' | 'void';
  failed: Failure | null;
  at: Date;
}

/** What an order shows of its fate (its `paid` and `failed`). */
export type Shown = Pick<OrderFate, 'fate' | 'failed'>;

/**
 * A paid order's fate as its debit decided it. The debit carried its order.placed (see pay), so
 * it needs no fate record: those are kept for voids and for what a repair finds (see settle).
 */
export const PAID: Shown = { fate: 'paid', failed: null };

/** Whether the order is known to be paid: its flag, or a paid fate whose flag has not followed yet. */
export const paidAsKnown = (order: Pick<Order, 'paid'>, fate: Pick<OrderFate, 'fate'> | null | undefined) =>
  order.paid || fate?.fate === 'paid';

/**
 * A decision taken once (rule 9): the insert of a record keyed by the order id, carrying the
 * order.confirmed or order.rejected event. The order's status merely follows it.
 */
const decisionSchema = new Schema(
  {
    _id: String,
    action: { type: String, enum: ['confirmed', 'rejected'], required: true },
    replay: { type: String, default: null },
    reason: { type: String, default: null },
    by: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
decisionSchema.plugin(carriesEvents);

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
}

export function orderModels(conn: Connection) {
  return {
    Order: modelOf<Order>(conn, 'Order', orderSchema, 'orders'),
    Fate: modelOf<OrderFate>(conn, 'Fate', fateSchema, 'order_fates'),
    Decision: modelOf<Decision>(conn, 'Decision', decisionSchema, 'order_decisions'),
    Placement: modelOf<{ _id: string; at: Date }>(conn, 'Placement', placementSchema, 'order_placements'),
    Tally: tallyModel(conn, 'OrderTally', 'order_tallies', 'paid'),
  };
}
export type OrderModels = ReturnType<typeof orderModels>;

export type NewOrder = Omit<
  Order,
  | '_id'
  | 'status'
  | 'paid'
  | 'failed'
  | 'fingerprint'
  | 'replay'
  | 'externalId'
  | 'reason'
  | 'createdAt'
  | 'hour'
  | 'decidedAt'
>;

/** A decision on an order, with the event that announces it. */
function decisionOf(order: Order, decision: Omit<Decision, '_id' | 'at'>) {
  const event =
    decision.action === 'confirmed'
      ? orderConfirmed(order, decision.replay ?? order.replay)
      : orderRejected(order, decision.reason);
  return { record: { _id: order._id.toString(), ...decision, at: new Date() }, events: [event] };
}

/** What a waiting order's fields become as its status follows its decision (the reply kept when it has none). */
function statusFollowing(decision: Decision, order: Pick<Order, 'replay'>) {
  return {
    status: decision.action,
    decidedAt: decision.at,
    replay: decision.replay ?? order.replay,
    reason: decision.reason,
  };
}

export class OrderStore implements TallySource {
  /**
   * How many orders are paid, kept by the hour each was placed in (see HourTallies); an hour
   * waits while one of its orders has no fate shown yet.
   */
  readonly tallies: HourTallies;

  constructor(
    readonly models: OrderModels,
    private readonly locks: DocumentLocks,
    private readonly outbox: Outbox,
  ) {
    this.tallies = new HourTallies(models.Tally, this);
  }

  findById(id: string) {
    return Types.ObjectId.isValid(id) ? this.models.Order.findById(id).lean<Order>() : Promise.resolve(null);
  }

  /**
   * Records the order before any money moves, unpaid (not shown) until the wallet's debit is
   * known. Inserted under its id, so an id already taken (a repeated Idempotency-Key) answers
   * the order recorded first instead.
   */
  async open(
    id: string,
    input: NewOrder,
    fingerprint: string | null,
  ): Promise<{ first: boolean; order: Order }> {
    const createdAt = new Date();
    const order: Order = {
      ...input,
      _id: new Types.ObjectId(id),
      status: 'waiting',
      paid: false,
      failed: null,
      fingerprint,
      replay: null,
      externalId: null,
      reason: null,
      createdAt,
      hour: hourKey(createdAt),
      decidedAt: null,
    };
    // Every field is set here, typed: the driver inserts it without mongoose making a document of
    // it first, which cost more CPU than the insert itself.
    const { first, record } = await insertOnce(this.models.Order, order, () =>
      this.models.Order.collection.insertOne(order),
    );
    return { first, order: record };
  }

  /**
   * Records the order's fate once (a paid one with its order.placed event, in case the debit was
   * made without it), then has the order follow it; answers the fate that stands, which is the
   * earlier one if another writer was first. A placement that is paid needs none (PAID).
   */
  async settle(order: Order, fate: Omit<OrderFate, '_id' | 'at'>): Promise<OrderFate> {
    const record: OrderFate = { _id: order._id.toString(), ...fate, at: new Date() };
    const events = fate.fate === 'paid' ? [orderPlaced(order)] : [];
    // Decided as the order is paid, or by a repair: seldom twice, so no look first.
    const stands = (await this.outbox.insertOnce(this.models.Fate, record, events, { lookFirst: false }))
      .record;
    await this.follow(order._id, stands);
    return stands;
  }

  fateOf(orderId: string) {
    return this.models.Fate.findById(orderId).lean<OrderFate>();
  }

  /** Moves the order's `paid` and `failed` to its fate; safe to repeat and to race (all write the same). */
  async follow(id: Types.ObjectId, fate: Shown): Promise<void> {
    const set = fate.fate === 'paid' ? { paid: true, failed: null } : { paid: false, failed: fate.failed };
    await this.locks.run(this.models.Order, id, () =>
      this.models.Order.updateOne({ _id: id }, { $set: set }),
    );
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

  /** Inserts the decision on an order with its event; answers it, or the earlier one when someone decided first. */
  async decide(
    order: Order,
    decision: Omit<Decision, '_id' | 'at'>,
  ): Promise<{ decided: true; decision: Decision } | { decided: false; earlier: Decision }> {
    const { record, events } = decisionOf(order, decision);
    const { first, record: stands } = await this.outbox.insertOnce(this.models.Decision, record, events);
    return first ? { decided: true, decision: stands } : { decided: false, earlier: stands };
  }

  /** Inserts the decisions on many orders in a few calls; answers those taken here (rule 9). */
  decideAll(decisions: { order: Order; decision: Omit<Decision, '_id' | 'at'> }[]): Promise<Decision[]> {
    return this.outbox.insertAll(
      this.models.Decision,
      decisions.map(({ order, decision }) => decisionOf(order, decision)),
    );
  }

  /** Moves the order's status to follow its decision; safe to repeat. */
  async apply(decision: Decision): Promise<Order | null> {
    const id = new Types.ObjectId(decision._id);
    return this.locks.run(this.models.Order, id, async () => {
      const order = await this.models.Order.findById(id).lean<Order>();
      if (!order || order.status !== 'waiting') return order;
      const set = statusFollowing(decision, order);
      await this.models.Order.updateOne({ _id: id }, { $set: set });
      return { ...order, ...set };
    });
  }

  /**
   * Moves a waiting order's status to follow its decision, from the caller's copy of the order
   * (for its reply) rather than a read of it; safe to repeat (an order no longer waiting is left).
   */
  async followDecision(decision: Decision, order: Pick<Order, 'replay'>): Promise<void> {
    const id = new Types.ObjectId(decision._id);
    await this.locks.run(this.models.Order, id, () =>
      this.models.Order.updateOne({ _id: id, status: 'waiting' }, { $set: statusFollowing(decision, order) }),
    );
  }

  /** The decisions taken on waiting orders placed more than `olderThanMs` ago: their effects were cut off. */
  async undone(olderThanMs: number): Promise<Decision[]> {
    const waiting = await this.models.Order.find({ status: 'waiting', paid: true })
      .select({ createdAt: 1 })
      .lean<Pick<Order, '_id' | 'createdAt'>[]>();
    const ids = waiting
      .filter((o) => o.createdAt.getTime() < Date.now() - olderThanMs)
      .map((o) => o._id.toString());
    return ids.length ? this.models.Decision.find({ _id: { $in: ids } }).lean<Decision[]>() : [];
  }

  /** Orders whose fate the order does not show yet, older than `ms` (their placement was cut off). */
  async unpaid(olderThanMs: number): Promise<Order[]> {
    // Failed orders are settled and pile up (every refused attempt is one): the store leaves them out.
    const list = await this.models.Order.find({ paid: false, failed: null }).lean<Order[]>();
    return list.filter((o) => o.createdAt.getTime() < Date.now() - olderThanMs);
  }

  list(filter: FilterQuery<Order>, page: number, limit: number) {
    return Promise.all([
      this.models.Order.find({ ...filter, paid: true })
        .sort({ createdAt: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<Order[]>(),
      this.count(filter),
    ]);
  }

  /**
   * The paid orders matching the filter. All of them come from the tallies. Otherwise they are
   * all that match less the unpaid ones, which are few: the local store counts a filter that holds
   * for nearly every order by reading each order (129 ms at 100,000), and all orders, or the few
   * unpaid, from an index (11–29 ms at 100,000; 150 ms at a million).
   */
  async count(filter: FilterQuery<Order> = {}) {
    const tallied = Object.keys(filter).length ? undefined : await this.tallies.count();
    if (tallied !== undefined) return tallied;
    const [all, unpaid] = await Promise.all([
      this.models.Order.countDocuments(filter),
      this.models.Order.countDocuments({ ...filter, paid: false }),
    ]);
    return all - unpaid;
  }

  /** The paid orders placed in the hour. */
  countIn(hour: string) {
    return this.models.Order.countDocuments({ hour, paid: true });
  }

  /** When the first order was placed, if any. */
  async firstAt() {
    const first = await this.models.Order.findOne()
      .sort({ createdAt: 1 })
      .select({ createdAt: 1 })
      .lean<Pick<Order, 'createdAt'>>();
    return first?.createdAt;
  }

  /** When the earliest order whose fate it does not show yet was placed, if any: its hour may still change. */
  async earliestPending() {
    const unpaid = await this.models.Order.find({ paid: false })
      .select({ createdAt: 1, failed: 1 })
      .lean<Pick<Order, 'createdAt' | 'failed'>[]>();
    return unpaid
      .filter((o) => !o.failed)
      .reduce<Date | undefined>(
        (earliest, o) => (earliest && earliest <= o.createdAt ? earliest : o.createdAt),
        undefined,
      );
  }

  // ---- Stuck and disputed orders (issue 15, paths 3 and 4; see domain/disputes.ts) ----

  /**
   * One page of the paid supplier orders still waiting that were placed before `before` (and
   * within the date filter's `from` and `to`), oldest first.
   */
  stuck(before: Date, range: { from?: Date; to?: Date }, page: number, limit: number) {
    const createdAt = {
      $lt: before,
      ...(range.from && { $gte: range.from }),
      ...(range.to && { $lte: range.to }),
    };
    const query = { status: 'waiting', kind: 'supplier', paid: true, createdAt };
    return Promise.all([
      this.models.Order.find(query)
        .sort({ createdAt: 1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<Order[]>(),
      this.models.Order.countDocuments(query),
    ]);
  }

  /** The decisions taken on these orders (the records, which the orders' statuses follow). */
  decisionsOf(ids: string[]) {
    return ids.length
      ? this.models.Decision.find({ _id: { $in: ids } }).lean<Decision[]>()
      : Promise.resolve([]);
  }

  byIds(ids: string[]) {
    const valid = ids.filter((id) => Types.ObjectId.isValid(id));
    return valid.length
      ? this.models.Order.find({ _id: { $in: valid } }).lean<Order[]>()
      : Promise.resolve([]);
  }

  /**
   * Moves a disputed order to what its dispute's resolution decided (a late code delivered, or a
   * refund of an order the supplier took back): the order follows the Resolution record, which
   * supersedes its first decision; safe to repeat (all write the same).
   */
  async followResolution(
    orderId: string,
    set: Pick<Order, 'status' | 'reason' | 'decidedAt'> & Partial<Pick<Order, 'replay' | 'externalId'>>,
  ): Promise<void> {
    const id = new Types.ObjectId(orderId);
    await this.locks.run(this.models.Order, id, () =>
      this.models.Order.updateOne({ _id: id }, { $set: set }),
    );
  }
}
