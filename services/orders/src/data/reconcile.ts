import { Types } from 'mongoose';
import type { Dispute, DisputeModels, Resolution } from './disputes';
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
  /** What the supplier said against the decision, and how an admin resolved it (null while open). */
  dispute: { kind: Dispute['kind']; resolution: Resolution['action'] | null } | null;
  createdAt: string;
}

/**
 * Orders after `after` in id order, with their fate, decision and dispute: a stable order, so
 * orders placed while reconcile reads are simply read later (or not at all), never twice.
 */
export async function ordersAfter(
  models: OrderModels,
  disputes: DisputeModels,
  after: string | null,
  limit: number,
) {
  const orders = await models.Order.find(after ? { _id: { $gt: new Types.ObjectId(after) } } : {})
    .sort({ _id: 1 })
    .limit(limit)
    .select({ userId: 1, total: 1, paid: 1, status: 1, createdAt: 1 })
    .lean<Pick<Order, '_id' | 'userId' | 'total' | 'paid' | 'status' | 'createdAt'>[]>();
  const byId = { _id: { $in: orders.map((o) => o._id.toString()) } };
  const [fates, decisions, disputed, resolutions] = orders.length
    ? await Promise.all([
        models.Fate.find(byId).lean<OrderFate[]>(),
        models.Decision.find(byId).lean<Decision[]>(),
        disputes.Dispute.find(byId).lean<Dispute[]>(),
        disputes.Resolution.find(byId).lean<Resolution[]>(),
      ])
    : [[], [], [], []];
  const fateOf = new Map(fates.map((f) => [f._id, f]));
  const decisionOf = new Map(decisions.map((d) => [d._id, d]));
  const disputeOf = new Map(disputed.map((d) => [d._id, d]));
  // The resolution record decides; the dispute's own field only follows it.
  const resolutionOf = new Map(resolutions.map((r) => [r._id, r.action]));
  return orders.map((o): ReconciledOrder => {
    const id = o._id.toString();
    const dispute = disputeOf.get(id);
    return {
      id,
      userId: o.userId,
      total: o.total,
      paid: o.paid,
      fate: fateOf.get(id)?.fate ?? null,
      status: o.status,
      decision: decisionOf.get(id)?.action ?? null,
      decidedAt: decisionOf.get(id)?.at.toISOString() ?? null,
      dispute: dispute ? { kind: dispute.kind, resolution: resolutionOf.get(id) ?? null } : null,
      createdAt: o.createdAt.toISOString(),
    };
  });
}
