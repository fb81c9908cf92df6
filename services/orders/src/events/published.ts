import { createEvent } from '@raseed/kit';
import type { Order } from '../data/orders';

export const orderPlaced = (o: Order) =>
  createEvent('orders', 'order.placed', o.userId, {
    orderId: o._id.toString(),
    userId: o.userId,
    productId: o.productId,
    productName: o.productName,
    quantity: o.quantity,
    total: o.total,
    placedAt: o.createdAt.toISOString(),
  });

export const orderConfirmed = (o: Order, replay: string | null) =>
  createEvent('orders', 'order.confirmed', o.userId, {
    orderId: o._id.toString(),
    userId: o.userId,
    total: o.total,
    replay,
  });

export const orderRejected = (o: Order, reason: string | null) =>
  createEvent('orders', 'order.rejected', o.userId, {
    orderId: o._id.toString(),
    userId: o.userId,
    total: o.total,
    reason,
  });
