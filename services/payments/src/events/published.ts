import { createEvent } from '@raseed/kit';
import type { Payment } from '../data/payments';

/** The events payments publishes (schemas in services/kit/src/events.ts), keyed by the user's id. */
const SOURCE = 'payments';

export const paymentSubmitted = (p: Payment) =>
  createEvent(SOURCE, 'payment.submitted', p.userId, {
    paymentId: p._id.toString(),
    userId: p.userId,
    method: p.productName,
    amount: p.amount,
    createdAt: p.createdAt.toISOString(),
  });

export const paymentConfirmed = (p: Payment, confirmedAt: Date) =>
  createEvent(SOURCE, 'payment.confirmed', p.userId, {
    paymentId: p._id.toString(),
    userId: p.userId,
    type: p.type,
    amount: p.amount,
    productName: p.productName,
    asDebt: p.asDebt,
    confirmedAt: confirmedAt.toISOString(),
  });

export const paymentRejected = (p: Payment) =>
  createEvent(SOURCE, 'payment.rejected', p.userId, {
    paymentId: p._id.toString(),
    userId: p.userId,
    amount: p.amount,
  });
