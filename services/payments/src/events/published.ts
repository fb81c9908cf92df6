import { createEvent } from '@raseed/kit';
/** The events payments publishes (schemas in services/kit/src/events.ts), keyed by the user's id. */
const SOURCE = 'payments';

/** What the events tell of a payment (a stored Payment has all of it). */
interface PaymentFacts {
  _id: { toString(): string };
  userId: string;
  productName: string;
  amount: number;
  type: 'IN' | 'OUT';
  asDebt: boolean;
  createdAt: Date;
}

export const paymentSubmitted = (p: PaymentFacts) =>
  createEvent(SOURCE, 'payment.submitted', p.userId, {
    paymentId: p._id.toString(),
    userId: p.userId,
    method: p.productName,
    amount: p.amount,
    createdAt: p.createdAt.toISOString(),
  });

export const paymentConfirmed = (p: PaymentFacts, confirmedAt: Date) =>
  createEvent(SOURCE, 'payment.confirmed', p.userId, {
    paymentId: p._id.toString(),
    userId: p.userId,
    type: p.type,
    amount: p.amount,
    productName: p.productName,
    asDebt: p.asDebt,
    confirmedAt: confirmedAt.toISOString(),
  });

export const paymentRejected = (p: PaymentFacts) =>
  createEvent(SOURCE, 'payment.rejected', p.userId, {
    paymentId: p._id.toString(),
    userId: p.userId,
    amount: p.amount,
  });
