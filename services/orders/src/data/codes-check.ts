import type { CodeClaim, CodeModels, StockCode } from './codes';
import { paidAsKnown, type Decision, type Order, type OrderFate, type OrderModels } from './orders';

/** A claim this young may belong to an order still being paid and delivered, or released. */
export const CLAIM_GRACE_MS = 5 * 60_000;

/** What the store's reconcile learns of the codes sold: every one on exactly one confirmed order. */
export interface CodesReport {
  /** Codes sold: one claim each. */
  sold: number;
  /** Claims younger than CLAIM_GRACE_MS whose order is not confirmed yet (still on their way). */
  inFlight: number;
  problems: string[];
}

/** Ids looked up at once with `$in` (each lookup is by `_id`). */
const CHUNK = 500;

async function byIds<T>(ids: string[], find: (ids: string[]) => Promise<T[]>): Promise<T[]> {
  const found: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) found.push(...(await find(ids.slice(i, i + CHUNK))));
  return found;
}

type CheckedOrder = Pick<Order, '_id' | 'userId' | 'stocked' | 'status' | 'quantity' | 'paid'>;
const ORDER_FIELDS = { userId: 1, stocked: 1, status: 1, quantity: 1, paid: 1 };

/**
 * Checks that every sold code is on exactly one confirmed order (rule 11: a code is sold by its
 * claim): each claim's order is confirmed (a claim younger than CLAIM_GRACE_MS may be on its
 * way), each confirmed order from stock holds as many claims as its quantity, and each code's
 * `claimedBy` names the order of its claim (and no code names a buyer without one, which would
 * hide a free code from sale). One pass over the claims; the rest is read by id, by the
 * `(stocked, status)` index and, product by product, by the `(productId, claimedBy)` index.
 */
export async function checkCodes(
  orders: OrderModels,
  codes: CodeModels,
  now = Date.now(),
): Promise<CodesReport> {
  const problems: string[] = [];
  const claims = await codes.Claim.find({}).lean<CodeClaim[]>();
  const claimOf = new Map(claims.map((c) => [c._id, c]));
  const claimsOf = new Map<string, CodeClaim[]>();
  for (const claim of claims) claimsOf.set(claim.orderId, [...(claimsOf.get(claim.orderId) ?? []), claim]);
  const orderIds = [...claimsOf.keys()];
  const [claimants, decisions, fates, confirmed, batches] = await Promise.all([
    byIds(orderIds, (ids) =>
      orders.Order.find({ _id: { $in: ids } })
        .select(ORDER_FIELDS)
        .lean<CheckedOrder[]>(),
    ),
    byIds(orderIds, (ids) => orders.Decision.find({ _id: { $in: ids } }).lean<Decision[]>()),
    byIds(orderIds, (ids) => orders.Fate.find({ _id: { $in: ids } }).lean<OrderFate[]>()),
    orders.Order.find({ stocked: true, status: 'confirmed' }).select(ORDER_FIELDS).lean<CheckedOrder[]>(),
    codes.Batch.find({}).select({ productId: 1 }).lean<{ productId: string }[]>(),
  ]);
  const orderOf = new Map(claimants.map((o) => [o._id.toString(), o]));
  const decisionOf = new Map(decisions.map((d) => [d._id, d]));
  const fateOf = new Map(fates.map((f) => [f._id, f]));

  let inFlight = 0;
  for (const [orderId, held] of claimsOf) {
    const order = orderOf.get(orderId);
    const decision = decisionOf.get(orderId);
    if (order?.stocked && decision?.action === 'confirmed') continue;
    const newest = Math.max(...held.map((c) => c.at.getTime()));
    if (now - newest < CLAIM_GRACE_MS) {
      inFlight += held.length;
      continue;
    }
    const fate = fateOf.get(orderId);
    const state = !order
      ? 'which does not exist'
      : !order.stocked
        ? 'which is not delivered from stock'
        : decision
          ? `which was ${decision.action}`
          : fate?.fate === 'void'
            ? 'which was voided'
            : paidAsKnown(order, fate)
              ? 'which was paid but never delivered'
              : 'which was never paid';
    const account = order ? ` (account ${order.userId})` : '';
    const codesOf = held.length === 1 ? 'code' : 'codes';
    problems.push(
      `${codesOf} ${held.map((c) => c._id).join(', ')} (product ${held[0]!.productId}) ${held.length === 1 ? 'is' : 'are'} claimed by order ${orderId}${account}, ${state}`,
    );
  }

  for (const order of confirmed) {
    const orderId = order._id.toString();
    const held = claimsOf.get(orderId)?.length ?? 0;
    if (held !== order.quantity)
      problems.push(
        `order ${orderId} (account ${order.userId}) was confirmed from stock with ${held} codes for a quantity of ${order.quantity}`,
      );
  }

  // Every code that names a buyer, product by product: it must be the order of its claim.
  const products = new Set([...batches.map((b) => b.productId), ...claims.map((c) => c.productId)]);
  const buyerOf = new Map<string, string>();
  for (const productId of products) {
    const sold = await codes.Code.find({ productId, claimedBy: { $ne: null } })
      .select({ claimedBy: 1 })
      .lean<Pick<StockCode, '_id' | 'claimedBy'>[]>();
    for (const code of sold) {
      const codeId = code._id.toString();
      buyerOf.set(codeId, code.claimedBy!);
      if (!claimOf.has(codeId))
        problems.push(
          `code ${codeId} (product ${productId}) names order ${code.claimedBy} as its buyer but has no claim: it is kept from sale`,
        );
    }
  }
  for (const claim of claims) {
    const buyer = buyerOf.get(claim._id);
    if (buyer === claim.orderId || now - claim.at.getTime() < CLAIM_GRACE_MS) continue;
    problems.push(
      `code ${claim._id} (product ${claim.productId}) is claimed by order ${claim.orderId} but names ${buyer ? `order ${buyer}` : 'no order'} as its buyer`,
    );
  }
  return { sold: claims.length, inFlight, problems };
}
