import type { EventEnvelope } from '@raseed/kit';
import type { FiguresStore } from '../data/figures';

/** A confirmed top-up (IN) is a sale; a withdrawal is not. */
export const onPaymentConfirmed =
  (figures: FiguresStore) =>
  async ({ data }: EventEnvelope<'payment.confirmed'>) => {
    if (data.type !== 'IN') return;
    await figures.recordSale({
      paymentId: data.paymentId,
      userId: data.userId,
      amount: data.amount,
      at: new Date(data.confirmedAt),
    });
  };

export const onDebtChanged =
  (figures: FiguresStore) =>
  async ({ data }: EventEnvelope<'wallet.debt-changed'>) => {
    await figures.setDebt(data.userId, data.debt, data.seq);
  };
