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

/** A paid order someone has to act on (not one delivered from stock at once): an item of the next admins' digest. */
export const onOrderPlaced =
  (digest: DigestStore) =>
  async ({ id, data }: EventEnvelope<'order.placed'>): Promise<void> => {
    if (data.fromStock) return;
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

const DISPUTES: Record<EventEnvelope<'order.disputed'>['data']['kind'], string> = {
  'completed-after-refund': 'the supplier completed it after it was refunded',
  'rejected-after-ok': 'the supplier rejected it after its OK',
};

/** An order a supplier contradicted: an item of the next admins' digest. */
export const onOrderDisputed =
  (digest: DigestStore) =>
  async ({ id, occurredAt, data }: EventEnvelope<'order.disputed'>): Promise<void> => {
    await digest.record({
      _id: id,
      kind: 'disputed',
      ref: data.orderId,
      userId: '',
      what: DISPUTES[data.kind],
      amount: 0,
      at: new Date(occurredAt),
    });
  };

/** A paid supplier order waiting too long: an item of the next admins' digest. */
export const onOrderStuck =
  (digest: DigestStore) =>
  async ({ id, data }: EventEnvelope<'order.stuck'>): Promise<void> => {
    await digest.record({
      _id: id,
      kind: 'stuck',
      ref: data.orderId,
      userId: data.userId,
      what: data.productName,
      amount: data.total,
      at: new Date(data.placedAt),
    });
  };
