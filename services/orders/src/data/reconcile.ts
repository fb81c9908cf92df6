import { Types } from 'mongoose';
import type { Decision, Order, OrderFate, OrderModels } from './orders';

/** An order as the store's reconcile checks it against the wallet's ledger. */
export interface ReconciledOrder {
  id: string;
  userId: string;
  /** Micro-dollars. */
  total: number;
  paid: boolean;
  fate: OrderFate['fate'] | null;
  status: Order['status'];
  decision: Decision['action'] | null;
  decidedAt: string | null;
  createdAt: string;
}

/**
 * Orders after `after` in id order, with their fate and decision: a stable order, so orders
 * placed while reconcile reads are simply read later (or not at all), never reported twice.
 */
export async function ordersAfter(models: OrderModels, after: string | null, limit: number) {
  const orders = await models.Order.find(after ? { _id: { $gt: new Types.ObjectId(after) } } : {})
    .sort({ _id: 1 })
    .limit(limit)
    .select({ userId: 1, total: 1, paid: 1, status: 1, createdAt: 1 })
    .lean<Pick<Order, '_id' | 'userId' | 'total' | 'paid' | 'status' | 'createdAt'>[]>();
  const ids = orders.map((o) => o._id.toString());
  const [fates, decisions] = ids.length
    ? await Promise.all([
        models.Fate.find({ _id: { $in: ids } }).lean<OrderFate[]>(),
        models.Decision.find({ _id: { $in: ids } }).lean<Decision[]>(),
      ])
    : [[], []];
  const fateOf = new Map(fates.map((f) => [f._id, f]));
  const decisionOf = new Map(decisions.map((d) => [d._id, d]));
  return orders.map((o): ReconciledOrder => ({
    id: o._id.toString(),
    userId: o.userId,
    total: o.total,
    paid: o.paid,
    fate: fateOf.get(o._id.toString())?.fate ?? null,
    status: o.status,
    decision: decisionOf.get(o._id.toString())?.action ?? null,
    decidedAt: decisionOf.get(o._id.toString())?.at.toISOString() ?? null,
    createdAt: o.createdAt.toISOString(),
  }));
}
