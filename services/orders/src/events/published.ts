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
}

export const orderPlaced = (o: OrderFacts) =>
  createEvent('orders', 'order.placed', o.userId, {
    orderId: o._id.toString(),
    userId: o.userId,
    productId: o.productId,
    productName: o.productName,
    quantity: o.quantity,
    total: o.total,
    placedAt: o.createdAt.toISOString(),
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
