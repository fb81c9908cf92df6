import { insertOnce, isDuplicateKey, outboxPlugin, withEvents, type DocumentLocks } from '@raseed/kit';
import { Schema, Types, type Connection, type FilterQuery, type Model } from 'mongoose';
import { paymentConfirmed, paymentRejected, paymentSubmitted } from '../events/published';

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
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    decidedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
paymentSchema.plugin(outboxPlugin);
paymentSchema.index({ userId: 1 });
paymentSchema.index({ status: 1 });

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
  createdBy: string;
  createdAt: Date;
  decidedAt: Date | null;
}
export type NewPayment = Omit<Payment, '_id' | 'createdAt' | 'decidedAt'> & { _id?: Types.ObjectId };

/**
 * A decision taken once (rule 9): the insert of a record keyed by the payment's id. Its
 * winner then moves the payment's status, which merely follows it; `applied` lets a
 * repair finish a decision whose status change was cut off.
 */
const decisionSchema = new Schema(
  {
    _id: { type: String },
    action: { type: String, enum: ['confirmed', 'rejected'], required: true },
    adminId: { type: String, required: true },
    at: { type: Date, required: true },
    applied: { type: Boolean, required: true },
  },
  { versionKey: false },
);
interface Decision {
  _id: string;
  action: 'confirmed' | 'rejected';
  adminId: string;
  at: Date;
  applied: boolean;
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
  };
}
export type PaymentModels = ReturnType<typeof paymentModels>;

export type DecisionResult =
  { decided: true; payment: Payment } | { decided: false; earlier: 'confirmed' | 'rejected' };

export class PaymentStore {
  constructor(
    readonly models: PaymentModels,
    private readonly locks: DocumentLocks,
  ) {}

  private get payments() {
    return this.models.Payment;
  }

  findById(id: string) {
    return Types.ObjectId.isValid(id) ? this.payments.findById(id).lean<Payment>() : Promise.resolve(null);
  }

  /** A customer's top-up, waiting for an admin, recorded with its payment.submitted event. */
  async submit(input: NewPayment): Promise<Payment> {
    const payment: Payment = {
      ...input,
      _id: input._id ?? new Types.ObjectId(),
      createdAt: new Date(),
      decidedAt: null,
    };
    await this.payments.create({ ...payment, outbox: [paymentSubmitted(payment)] });
    return payment;
  }

  /** An admin's payment, confirmed as it is made; a second insert of the same id returns the first. */
  async recordConfirmed(input: NewPayment & { _id: Types.ObjectId }): Promise<Payment> {
    const now = new Date();
    const payment: Payment = { ...input, status: 'confirmed', createdAt: now, decidedAt: now };
    try {
      await this.payments.create({ ...payment, outbox: [paymentConfirmed(payment, now)] });
      return payment;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const first = await this.payments.findById(input._id).lean<Payment>();
      if (!first) throw err;
      return first;
    }
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
    const { first, record } = await insertOnce(this.models.Decision, {
      _id: payment._id.toString(),
      action,
      adminId,
      at: new Date(),
      applied: false,
    });
    if (!first) return { decided: false, earlier: record.action };
    return { decided: true, payment: await this.applyDecision(payment._id.toString(), action) };
  }

  /** Moves the payment's status to its decision, with the event; safe to repeat. */
  private async applyDecision(id: string, action: 'confirmed' | 'rejected'): Promise<Payment> {
    const payment = await this.locks.run(this.payments, id, async () => {
      const current = await this.payments.findById(id).lean<Payment>();
      if (!current) throw new Error(`decided payment ${id} is missing`);
      if (current.status !== 'waiting') return current;
      const decidedAt = new Date();
      const event = action === 'confirmed' ? paymentConfirmed(current, decidedAt) : paymentRejected(current);
      await this.payments.updateOne({ _id: id }, withEvents({ $set: { status: action, decidedAt } }, event));
      return { ...current, status: action, decidedAt };
    });
    await this.models.Decision.updateOne({ _id: id }, { $set: { applied: true } });
    return payment;
  }

  /** Finishes decisions whose status change was cut off (a crash between the two writes). */
  async repairDecisions(olderThanMs = 10_000): Promise<number> {
    const pending = await this.models.Decision.find({ applied: false }).lean<Decision[]>();
    const stale = pending.filter((d) => Date.now() - d.at.getTime() > olderThanMs);
    for (const decision of stale) await this.applyDecision(decision._id, decision.action);
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
      this.payments.countDocuments(filter),
    ]);
    return { items, total };
  }

  /** Confirmed payments that moved money, oldest first, for the wallet's reconcile. */
  confirmed(page: number, limit: number) {
    return this.page({ status: 'confirmed' }, page, limit);
  }

  /** Sales (confirmed IN payments) as { userId, amount, decidedAt }, for the figures. */
  sales() {
    return this.payments
      .find({ status: 'confirmed', type: 'IN' })
      .select({ userId: 1, amount: 1, decidedAt: 1 })
      .lean<Pick<Payment, 'userId' | 'amount' | 'decidedAt'>[]>();
  }

  count(filter: FilterQuery<Payment> = {}) {
    return this.payments.countDocuments(filter);
  }
}
