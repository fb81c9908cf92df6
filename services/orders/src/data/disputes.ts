import {
  carriesEvents,
  insertNew,
  insertOnce,
  modelOf,
  type DocumentLocks,
  type EventEnvelope,
  type Outbox,
} from '@raseed/kit';
import { Schema, type Connection, type FilterQuery } from 'mongoose';
import { orderDisputed, orderStuck } from '../events/published';
import type { Order } from './orders';

/**
 * A supplier order we settled that the supplier is still asked about until `until` (see
 * watchSupplier): one whose placement timed out and was refunded, one it said OK to, and one an
 * admin decided on the stuck list. Inserted before the decision it watches, so a crash between
 * the two leaves a watch on a waiting order, which the watch skips.
 */
export interface Watch {
  _id: string;
  until: Date;
}

/**
 * What the supplier said against our decision on an order: it completed an order we had
 * refunded, or rejected one it had completed. Recorded once by its insert keyed by the order id;
 * `resolution` follows the order's Resolution record and takes it off the admins' list.
 */
export type DisputeKind = 'completed-after-refund' | 'rejected-after-ok';

export interface Dispute {
  _id: string;
  kind: DisputeKind;
  /** The supplier's reply: the code of a late completion, or its reason for the reject. */
  supplierReply: string | null;
  supplierOrderId: string;
  at: Date;
  resolution: ResolutionAction | null;
}

/**
 * deliver: the customer pays again and gets the supplier's code; refund: the customer is
 * refunded an order the supplier took back; write-off: the store bears the cost, nothing moves.
 */
export type ResolutionAction = 'deliver' | 'refund' | 'write-off';

/**
 * An admin's resolution of a dispute, taken once (rule 9): the insert of a record keyed by the
 * order id, carrying the order's new order.confirmed (deliver) or order.rejected (refund) event.
 */
export interface Resolution {
  _id: string;
  action: ResolutionAction;
  by: string;
  at: Date;
}

/** An admin's Idempotency-Key for an action on an order, with what the request asked for. */
export interface ActionKey {
  /** keyedId(adminId, key): two admins' equal keys are two keys. */
  _id: string;
  orderId: string;
  fingerprint: string;
  at: Date;
}

const watchSchema = new Schema({ _id: String, until: { type: Date, required: true } }, { versionKey: false });
watchSchema.index({ until: 1 });

const disputeSchema = new Schema(
  {
    _id: String,
    kind: { type: String, enum: ['completed-after-refund', 'rejected-after-ok'], required: true },
    supplierReply: { type: String, default: null },
    supplierOrderId: { type: String, required: true },
    at: { type: Date, required: true },
    resolution: { type: String, enum: ['deliver', 'refund', 'write-off'], default: null },
  },
  { versionKey: false },
);
disputeSchema.index({ resolution: 1, at: -1 });
disputeSchema.plugin(carriesEvents);

/** A stuck order told to the admins, once, by this insert carrying order.stuck. */
const stuckNoticeSchema = new Schema(
  { _id: String, at: { type: Date, required: true } },
  { versionKey: false },
);
stuckNoticeSchema.plugin(carriesEvents);

const resolutionSchema = new Schema(
  {
    _id: String,
    action: { type: String, enum: ['deliver', 'refund', 'write-off'], required: true },
    by: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
resolutionSchema.plugin(carriesEvents);

const actionKeySchema = new Schema(
  {
    _id: String,
    orderId: { type: String, required: true },
    fingerprint: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);

export function disputeModels(conn: Connection) {
  return {
    Watch: modelOf<Watch>(conn, 'Watch', watchSchema, 'order_watch'),
    Dispute: modelOf<Dispute>(conn, 'Dispute', disputeSchema, 'order_disputes'),
    Resolution: modelOf<Resolution>(conn, 'Resolution', resolutionSchema, 'order_resolutions'),
    ActionKey: modelOf<ActionKey>(conn, 'ActionKey', actionKeySchema, 'order_action_keys'),
    StuckNotice: modelOf<{ _id: string; at: Date }>(
      conn,
      'StuckNotice',
      stuckNoticeSchema,
      'order_stuck_notices',
    ),
  };
}
export type DisputeModels = ReturnType<typeof disputeModels>;

/** Watches on settled supplier orders, the disputes they turn up, and their resolutions. */
export class DisputeStore {
  constructor(
    readonly models: DisputeModels,
    private readonly locks: DocumentLocks,
    private readonly outbox: Outbox,
    /** How long a watch lasts (ORDER_WATCH_HOURS). */
    private readonly watchMs: number,
  ) {}

  /** Starts watching an order at the supplier; a second watch of it changes nothing. */
  async watch(orderId: string): Promise<void> {
    await this.watchAll([orderId]);
  }

  /** Watches many orders in one call; an order watched already keeps its watch. */
  async watchAll(orderIds: string[]): Promise<void> {
    const until = new Date(Date.now() + this.watchMs);
    await insertNew(
      this.models.Watch,
      orderIds.map((_id) => ({ _id, until })),
    );
  }

  /** The orders still watched that are not disputed yet; watches that ran out are dropped. */
  async watched(): Promise<string[]> {
    const now = new Date();
    await this.models.Watch.deleteMany({ until: { $lte: now } });
    const ids = (await this.models.Watch.find({ until: { $gt: now } }).lean<Watch[]>()).map((w) => w._id);
    if (!ids.length) return [];
    const disputed = new Set(
      (
        await this.models.Dispute.find({ _id: { $in: ids } })
          .select({ _id: 1 })
          .lean<Pick<Dispute, '_id'>[]>()
      ).map((d) => d._id),
    );
    return ids.filter((id) => !disputed.has(id));
  }

  /** Records a dispute once, announced by order.disputed; answers whether this call recorded it. */
  async open(dispute: Omit<Dispute, 'at' | 'resolution'>): Promise<boolean> {
    const record = { ...dispute, at: new Date(), resolution: null };
    return (await this.outbox.insertOnce(this.models.Dispute, record, [orderDisputed(record)])).first;
  }

  /** Tells the admins of a stuck order once; answers whether this call told them. */
  async noticeStuck(order: Order): Promise<boolean> {
    const notice = { _id: order._id.toString(), at: new Date() };
    return (await this.outbox.insertOnce(this.models.StuckNotice, notice, [orderStuck(order)])).first;
  }

  find(orderId: string) {
    return this.models.Dispute.findById(orderId).lean<Dispute>();
  }

  /** One page of the disputes not resolved yet (within a filter on their `at`), newest first, and how many there are. */
  unresolved(filter: FilterQuery<Dispute>, page: number, limit: number) {
    const query = { ...filter, resolution: null };
    return Promise.all([
      this.models.Dispute.find(query)
        .sort({ at: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<Dispute[]>(),
      this.models.Dispute.countDocuments(query),
    ]);
  }

  resolutionOf(orderId: string) {
    return this.models.Resolution.findById(orderId).lean<Resolution>();
  }

  /** Inserts the resolution with its events; answers it, or the earlier one when someone resolved first. */
  resolve(resolution: Resolution, events: EventEnvelope[]) {
    return this.outbox.insertOnce(this.models.Resolution, resolution, events);
  }

  /** Moves the dispute's `resolution` to follow its record; safe to repeat and to race. */
  async follow(resolution: Resolution): Promise<void> {
    await this.locks.run(this.models.Dispute, resolution._id, () =>
      this.models.Dispute.updateOne({ _id: resolution._id }, { $set: { resolution: resolution.action } }),
    );
  }

  /** Every dispute not shown as resolved, with its resolution record when there is one (the repair's list). */
  async pending(): Promise<{ dispute: Dispute; resolution: Resolution | null }[]> {
    const disputes = await this.models.Dispute.find({ resolution: null }).lean<Dispute[]>();
    if (!disputes.length) return [];
    const resolutions = await this.models.Resolution.find({ _id: { $in: disputes.map((d) => d._id) } }).lean<
      Resolution[]
    >();
    const byId = new Map(resolutions.map((r) => [r._id, r]));
    return disputes.map((dispute) => ({ dispute, resolution: byId.get(dispute._id) ?? null }));
  }

  /** Claims an admin's Idempotency-Key for a request; answers the claim that stands. */
  claimKey(id: string, orderId: string, fingerprint: string) {
    return insertOnce(this.models.ActionKey, { _id: id, orderId, fingerprint, at: new Date() });
  }
}
