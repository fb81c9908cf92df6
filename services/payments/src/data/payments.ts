import {
  carriesEvents,
  hourKey,
  HourTallies,
  insertOnce,
  isDuplicateKey,
  tallyModel,
  type DocumentLocks,
  type Outbox,
} from '@raseed/kit';
import { Schema, Types, type Connection, type FilterQuery, type Model } from 'mongoose';
import { paymentConfirmed, paymentRejected, paymentSubmitted } from '../events/published';
import { saleSummaryModel, saleUserTotalsModel, type SaleRow, type SaleSource } from './sales';

const paymentSchema = new Schema(
  {
    userId: { type: String, required: true },
    username: { type: String, required: true },
    /** The method (Whish-Money, Binance) of a top-up, or 'Payment' for an admin's. */
    productName: { type: String, required: true },
    /** Micro-dollars. */
    amount: { type: Number, required: true },
    amountToSend: { type: Number, default: null },
    type: { type: String, enum: ['IN', 'OUT'], required: true },
    status: { type: String, enum: ['waiting', 'confirmed', 'rejected'], required: true },
    /** An admin's credit given as debt. */
    asDebt: { type: Boolean, default: false },
    /** The receipt's key in the object store (private). */
    receipt: { type: String, default: null },
    /** The SHA-256 of the receipt's bytes. */
    receiptDigest: { type: String },
    /**
     * The receipt's claim, unique: the customer, the digest and the round (how many earlier
     * submissions of it, all rejected). Absent on admins' payments, hence a sparse index.
     */
    receiptClaim: { type: String },
    /**
     * The waiting slot a customer's top-up holds ('<user id>:<n>', n < MAX_WAITING_TOP_UPS),
     * unique, freed by its decision: the insert that claims it decides that a customer never has
     * more top-ups waiting than that. Absent on admins' payments and decided ones.
     */
    waitingSlot: { type: String },
    /** What a top-up asked for (method, amount), compared when its Idempotency-Key is repeated. */
    fingerprint: { type: String },
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    /** The hour it was made in (hourKey of createdAt), by which the tallies count it. */
    hour: { type: String },
    decidedAt: { type: Date, default: null },
    /** A sale's hour (a confirmed IN payment's, from its decision time), which the figures sum. */
    saleHour: { type: String },
  },
  { versionKey: false },
);
// A payment's insert carries payment.submitted (a top-up) or payment.confirmed (an admin's).
paymentSchema.plugin(carriesEvents);
paymentSchema.index({ userId: 1 });
paymentSchema.index({ status: 1 });
paymentSchema.index({ createdAt: -1 });
paymentSchema.index({ hour: 1 }, { sparse: true });
paymentSchema.index({ saleHour: 1 }, { sparse: true });
paymentSchema.index({ receiptClaim: 1 }, { unique: true, sparse: true });
paymentSchema.index({ waitingSlot: 1 }, { unique: true, sparse: true });

/** How many top-ups a customer may have waiting for review at once. */
export const MAX_WAITING_TOP_UPS = 5;

export interface Payment {
  _id: Types.ObjectId;
  userId: string;
  username: string;
  productName: string;
  amount: number;
  amountToSend: number | null;
  type: 'IN' | 'OUT';
  status: 'waiting' | 'confirmed' | 'rejected';
  asDebt: boolean;
  receipt: string | null;
  receiptDigest?: string;
  receiptClaim?: string;
  waitingSlot?: string;
  fingerprint?: string;
  createdBy: string;
  createdAt: Date;
  /** Absent on a payment made before payments had one. */
  hour?: string;
  decidedAt: Date | null;
  saleHour?: string;
}
export type NewPayment = Omit<Payment, '_id' | 'createdAt' | 'hour' | 'decidedAt' | 'saleHour'> & {
  _id?: Types.ObjectId;
};

/**
 * A decision taken once (rule 9): the insert of a record keyed by the payment's id, carrying
 * payment.confirmed or payment.rejected (rule 11). The payment's status merely follows it, and
 * the repair moves it again if that was cut off (or undone by a lost update).
 */
const decisionSchema = new Schema(
  {
    _id: { type: String },
    action: { type: String, enum: ['confirmed', 'rejected'], required: true },
    adminId: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
decisionSchema.plugin(carriesEvents);
interface Decision {
  _id: string;
  action: 'confirmed' | 'rejected';
  adminId: string;
  at: Date;
}

/**
 * An admin's payment as requested, recorded before any money moves: its key (the admin and
 * the Idempotency-Key) names one payment id whoever asks first, and a withdrawal the wallet
 * debited is recorded from it even if this service stopped before recording the payment.
 */
const requestSchema = new Schema(
  {
    _id: String,
    paymentId: { type: String, required: true },
    userId: { type: String, required: true },
    username: { type: String, required: true },
    amount: { type: Number, required: true },
    type: { type: String, enum: ['IN', 'OUT'], required: true },
    asDebt: { type: Boolean, required: true },
    /** What was asked (user, amount, type, as debt): a repeat of the key must ask the same. */
    fingerprint: { type: String },
    createdBy: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
requestSchema.index({ paymentId: 1 }, { unique: true });

export interface PaymentRequest {
  _id: string;
  paymentId: string;
  userId: string;
  username: string;
  amount: number;
  type: 'IN' | 'OUT';
  asDebt: boolean;
  fingerprint?: string;
  createdBy: string;
  at: Date;
}

export function paymentModels(conn: Connection) {
  return {
    Payment:
      (conn.models.Payment as Model<Payment> | undefined) ??
      conn.model<Payment>('Payment', paymentSchema, 'payments'),
    Decision:
      (conn.models.Decision as Model<Decision> | undefined) ??
      conn.model<Decision>('Decision', decisionSchema, 'payment_decisions'),
    Request:
      (conn.models.Request as Model<PaymentRequest> | undefined) ??
      conn.model<PaymentRequest>('Request', requestSchema, 'payment_requests'),
    SaleSummary: saleSummaryModel(conn),
    SaleUserTotals: saleUserTotalsModel(conn),
    Tally: tallyModel(conn, 'PaymentTally', 'payment_tallies', 'count'),
  };
}
export type PaymentModels = ReturnType<typeof paymentModels>;

/** What the insert of a customer's top-up decided: null when another payment holds its receipt. */
export type Submission = { first: boolean; payment: Payment } | null;

export type DecisionResult =
  { decided: true; payment: Payment } | { decided: false; earlier: 'confirmed' | 'rejected' };

/** The hour a payment decided at `at` counts in the sales figures, if it is a sale. */
const saleOf = (p: Pick<Payment, 'type'>, status: Payment['status'], at: Date) =>
  p.type === 'IN' && status === 'confirmed' ? { saleHour: hourKey(at) } : {};

export class PaymentStore implements SaleSource {
  /**
   * How many payments there are, kept by the hour each was made in (see HourTallies). A
   * payment's hour never changes, so no hour waits; the first tally counts by time, as payments
   * made before they had an hour carry none.
   */
  readonly tallies: HourTallies;

  constructor(
    readonly models: PaymentModels,
    private readonly locks: DocumentLocks,
    private readonly outbox: Outbox,
  ) {
    this.tallies = new HourTallies(models.Tally, {
      countIn: (hour) => this.payments.countDocuments({ hour }),
      firstAt: () => this.firstPaymentAt(),
      earliestPending: async () => undefined,
      countBefore: (end) => this.payments.countDocuments({ createdAt: { $lt: end } }),
    });
  }

  private get payments() {
    return this.models.Payment;
  }

  findById(id: string) {
    return Types.ObjectId.isValid(id) ? this.payments.findById(id).lean<Payment>() : Promise.resolve(null);
  }

  /** A customer's top-up, waiting for an admin, recorded with its payment.submitted event. */
  async submit(input: NewPayment): Promise<Payment> {
    const createdAt = new Date();
    const payment: Payment = {
      ...input,
      _id: input._id ?? new Types.ObjectId(),
      createdAt,
      hour: hourKey(createdAt),
      decidedAt: null,
    };
    await this.outbox.create(this.payments, payment, [paymentSubmitted(payment)], { _id: payment._id });
    return payment;
  }

  /**
   * A customer's top-up, inserted once. The insert decides two things (rule 9): the payment's
   * id, which an Idempotency-Key names, and the receipt's claim. A lost id answers the payment
   * that holds it; a lost claim answers null.
   */
  async submitOnce(input: NewPayment & { _id: Types.ObjectId }): Promise<Submission> {
    try {
      return { first: true, payment: await this.submit(input) };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      // The store may not say which index refused, so the id is looked up first.
      const holder = await this.findById(input._id.toString());
      return holder ? { first: false, payment: holder } : null;
    }
  }

  /**
   * A waiting slot the customer's next top-up may claim, or null when all of them hold waiting
   * top-ups. A slot still held by a decided payment (its update was cut off) is freed here.
   * Two submitters who read the same free slot race for it, and one insert wins.
   */
  private async freeSlot(userId: string): Promise<string | null> {
    const holders = await this.payments
      .find({ userId, waitingSlot: { $exists: true } })
      .select({ waitingSlot: 1, status: 1 })
      .lean<Pick<Payment, '_id' | 'waitingSlot' | 'status'>[]>();
    const taken = new Set<string>();
    for (const holder of holders) {
      if (holder.status === 'waiting') taken.add(holder.waitingSlot!);
      else
        await this.locks.run(this.payments, holder._id, () =>
          this.payments.updateOne(
            { _id: holder._id, status: { $ne: 'waiting' } },
            { $unset: { waitingSlot: 1 } },
          ),
        );
    }
    for (let n = 0; n < MAX_WAITING_TOP_UPS; n++) if (!taken.has(`${userId}:${n}`)) return `${userId}:${n}`;
    return null;
  }

  /**
   * A customer's top-up, inserted once in one of the customer's free waiting slots (the insert
   * claims the slot, rule 9). A slot lost to a top-up sent at the same moment is tried again
   * with another; 'full' when every slot holds a waiting top-up. Otherwise as submitOnce.
   */
  async submitInSlot(input: NewPayment & { _id: Types.ObjectId }): Promise<Submission | 'full'> {
    for (let tries = 0; tries <= MAX_WAITING_TOP_UPS; tries++) {
      const waitingSlot = await this.freeSlot(input.userId);
      if (!waitingSlot) return 'full';
      const submission = await this.submitOnce({ ...input, waitingSlot });
      // Lost neither to the id nor to the receipt's claim: only the slot was taken meanwhile.
      if (submission || (await this.payments.exists({ receiptClaim: input.receiptClaim })) !== null)
        return submission;
    }
    return 'full';
  }

  /**
   * The round in which a customer may submit a receipt now: the number of its earlier
   * submissions, provided each was rejected; null while one waits or stands confirmed.
   * Two submitters who read the same round race for the same claim, and one insert wins.
   */
  async receiptRound(userId: string, digest: string): Promise<number | null> {
    const earlier = await this.payments
      .find({ userId, receiptDigest: digest })
      .select({ status: 1 })
      .lean<Pick<Payment, '_id' | 'status'>[]>();
    for (const payment of earlier) {
      if (payment.status === 'rejected') continue;
      // The decision record is what decided; the status may not have followed it yet.
      const decision = await this.models.Decision.findById(payment._id.toString()).lean<Decision>();
      if (decision?.action !== 'rejected') return null;
    }
    return earlier.length;
  }

  /** An admin's payment, confirmed as it is made; a second insert of the same id returns the first. */
  async recordConfirmed(input: NewPayment & { _id: Types.ObjectId }): Promise<Payment> {
    const now = new Date();
    const payment: Payment = {
      ...input,
      status: 'confirmed',
      createdAt: now,
      hour: hourKey(now),
      decidedAt: now,
      ...saleOf(input, 'confirmed', now),
    };
    return (await this.outbox.insertOnce(this.payments, payment, [paymentConfirmed(payment, now)])).record;
  }

  /** Records an admin's request under its key; a repeat of the key answers the first request. */
  async request(
    key: string,
    intent: Omit<PaymentRequest, '_id' | 'paymentId' | 'at'>,
  ): Promise<PaymentRequest> {
    const request: PaymentRequest = {
      _id: key,
      paymentId: new Types.ObjectId().toString(),
      ...intent,
      at: new Date(),
    };
    return (await insertOnce(this.models.Request, request)).record;
  }

  requestFor(paymentId: string) {
    return this.models.Request.findOne({ paymentId }).lean<PaymentRequest>();
  }

  /** The confirmed payment an admin's request stands for, recorded once. */
  recordRequested(request: PaymentRequest): Promise<Payment> {
    return this.recordConfirmed({
      _id: new Types.ObjectId(request.paymentId),
      userId: request.userId,
      username: request.username,
      productName: 'Payment',
      amount: request.amount,
      amountToSend: null,
      type: request.type,
      status: 'confirmed',
      asDebt: request.asDebt,
      receipt: null,
      createdBy: request.createdBy,
    });
  }

  /**
   * Confirms or rejects a waiting payment once: the first decision recorded wins, and any
   * other (the same or the opposite, from anyone) is told which one stands.
   */
  async decide(payment: Payment, action: 'confirmed' | 'rejected', adminId: string): Promise<DecisionResult> {
    const at = new Date();
    const event = action === 'confirmed' ? paymentConfirmed(payment, at) : paymentRejected(payment);
    const { first, record } = await this.outbox.insertOnce(
      this.models.Decision,
      { _id: payment._id.toString(), action, adminId, at },
      [event],
    );
    if (!first) return { decided: false, earlier: record.action };
    return { decided: true, payment: await this.applyDecision(record) };
  }

  /** Moves the payment's status to its decision; safe to repeat. */
  private async applyDecision(decision: Decision): Promise<Payment> {
    return this.locks.run(this.payments, decision._id, async () => {
      const current = await this.payments.findById(decision._id).lean<Payment>();
      if (!current) throw new Error(`decided payment ${decision._id} is missing`);
      if (current.status !== 'waiting') return current;
      const set = {
        status: decision.action,
        decidedAt: decision.at,
        ...saleOf(current, decision.action, decision.at),
      };
      // A decided top-up no longer waits: its slot is free for the customer's next one.
      await this.payments.updateOne({ _id: decision._id }, { $set: set, $unset: { waitingSlot: 1 } });
      return { ...current, ...set };
    });
  }

  /**
   * Decisions whose payment still waits: their status change is on its way or was cut off.
   * Each is looked up by its id (the waiting payments are few; the decisions, every one ever).
   */
  private async unapplied(): Promise<Decision[]> {
    const waiting = await this.payments
      .find({ status: 'waiting' })
      .select({ _id: 1 })
      .lean<{ _id: Types.ObjectId }[]>();
    // The driver's pool bounds how many of these lookups run at once.
    const decisions = await Promise.all(
      waiting.map((p) => this.models.Decision.findById(p._id.toString()).lean<Decision>()),
    );
    return decisions.filter((d): d is Decision => d !== null);
  }

  /** Finishes decisions whose status change was cut off: waiting payments that have a decision. */
  async repairDecisions(olderThanMs = 10_000): Promise<number> {
    const stale = (await this.unapplied()).filter((d) => Date.now() - d.at.getTime() > olderThanMs);
    for (const decision of stale) await this.applyDecision(decision);
    return stale.length;
  }

  async page(filter: FilterQuery<Payment>, page: number, limit: number) {
    const [items, total] = await Promise.all([
      this.payments
        .find(filter)
        .sort({ createdAt: -1, _id: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<Payment[]>(),
      this.count(filter),
    ]);
    return { items, total };
  }

  /** Confirmed payments that moved money, oldest first, for the wallet's reconcile. */
  confirmed(page: number, limit: number) {
    return this.page({ status: 'confirmed' }, page, limit);
  }

  salesIn(hour: string): Promise<SaleRow[]> {
    return this.payments
      .find({ saleHour: hour })
      .select({ userId: 1, amount: 1, decidedAt: 1, saleHour: 1 })
      .lean<SaleRow[]>();
  }

  /** Every sale; one confirmed before sales had an hour gets it here, once. */
  async allSales(): Promise<SaleRow[]> {
    const sales = await this.payments
      .find({ status: 'confirmed', type: 'IN' })
      .select({ userId: 1, amount: 1, decidedAt: 1, saleHour: 1 })
      .lean<(SaleRow & { _id: Types.ObjectId })[]>();
    for (const sale of sales.filter((s) => !s.saleHour)) {
      sale.saleHour = hourKey(sale.decidedAt ?? new Date(0));
      await this.locks.run(this.payments, sale._id, () =>
        this.payments.updateOne({ _id: sale._id }, { $set: { saleHour: sale.saleHour } }),
      );
    }
    return sales;
  }

  async firstPaymentAt(): Promise<Date | undefined> {
    const first = await this.payments
      .findOne()
      .sort({ createdAt: 1 })
      .select({ createdAt: 1 })
      .lean<Pick<Payment, 'createdAt'>>();
    return first?.createdAt;
  }

  async earliestUnapplied(): Promise<Date | undefined> {
    const confirmed = (await this.unapplied()).filter((d) => d.action === 'confirmed');
    return confirmed.length ? new Date(Math.min(...confirmed.map((d) => d.at.getTime()))) : undefined;
  }

  /**
   * The payments matching the filter; all of them from the tallies, as the local store counts
   * every payment by reading an index whole (30 ms at 200,000).
   */
  async count(filter: FilterQuery<Payment> = {}): Promise<number> {
    const tallied = Object.keys(filter).length ? undefined : await this.tallies.count();
    return tallied ?? this.payments.countDocuments(filter);
  }

  /** When the oldest top-up still waiting was sent, if any waits. */
  async oldestWaiting(): Promise<Date | undefined> {
    const oldest = await this.payments
      .findOne({ status: 'waiting' })
      .sort({ createdAt: 1 })
      .select({ createdAt: 1 })
      .lean<Pick<Payment, 'createdAt'>>();
    return oldest?.createdAt;
  }
}
