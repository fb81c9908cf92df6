import { createEvent } from '@raseed/kit';

/** What the events tell of an order (a stored Order has all of it). */
interface OrderFacts {
  _id: { toString(): string };
  userId: string;
  productId: string;
  productName: string;
  quantity: number;
  total: number;
  createdAt: Date;
  kind: 'created' | 'supplier';
  stocked?: boolean;
}

/**
 * A paid order's event. Its id is the order's, so the event is one wherever it is born: with the
 * order's debit as a rule, or with its paid fate when a repair finds the debit (see settle), and
 * consumers drop the second as a repeat.
 */
export const orderPlaced = (o: OrderFacts) =>
  createEvent(
    'orders',
    'order.placed',
    o.userId,
    {
      orderId: o._id.toString(),
      userId: o.userId,
      productId: o.productId,
      productName: o.productName,
      quantity: o.quantity,
      total: o.total,
      placedAt: o.createdAt.toISOString(),
      kind: o.kind,
      ...(o.stocked && { fromStock: true }),
    },
    `order.placed:${o._id.toString()}`,
  );

export const orderStuck = (o: OrderFacts) =>
  createEvent('orders', 'order.stuck', o.userId, {
    orderId: o._id.toString(),
    userId: o.userId,
    productName: o.productName,
    total: o.total,
    placedAt: o.createdAt.toISOString(),
  });

export const orderDisputed = (d: {
  _id: string;
  kind: 'completed-after-refund' | 'rejected-after-ok';
  supplierOrderId: string;
}) =>
  createEvent('orders', 'order.disputed', d._id, {
    orderId: d._id,
    kind: d.kind,
    supplierOrderId: d.supplierOrderId,
  });

export const orderConfirmed = (o: OrderFacts, replay: string | null) =>
  createEvent('orders', 'order.confirmed', o.userId, {
    orderId: o._id.toString(),
    userId: o.userId,
    total: o.total,
    replay,
  });

export const orderRejected = (o: OrderFacts, reason: string | null) =>
  createEvent('orders', 'order.rejected', o.userId, {
    orderId: o._id.toString(),
    userId: o.userId,
    total: o.total,
    reason,
  });
