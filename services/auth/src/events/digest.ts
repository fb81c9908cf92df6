import type { EventEnvelope } from '@raseed/kit';
import type { DigestStore } from '../data/digest';

/** A customer's top-up, waiting for an admin: an item of the next admins' digest. */
export const onTopUpSubmitted =
  (digest: DigestStore) =>
  async ({ id, data }: EventEnvelope<'payment.submitted'>): Promise<void> => {
    await digest.record({
      _id: id,
      kind: 'top-up',
      ref: data.paymentId,
      userId: data.userId,
      what: data.method,
      amount: data.amount,
      at: new Date(data.createdAt),
    });
  };

/** A paid order: an item of the next admins' digest. */
export const onOrderPlaced =
  (digest: DigestStore) =>
  async ({ id, data }: EventEnvelope<'order.placed'>): Promise<void> => {
    await digest.record({
      _id: id,
      kind: 'order',
      ref: data.orderId,
      userId: data.userId,
      what: `${data.productName} × ${data.quantity}`,
      amount: data.total,
      at: new Date(data.placedAt),
    });
  };
