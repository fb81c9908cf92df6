import {
  conflict,
  notFound,
  SupplierError,
  type SessionUser,
  type SupplierClient,
  type SupplierOrder,
} from '@raseed/kit';
import type { Order } from '../data/orders';
import { claimActionKey } from './disputes';
import type { FulfilmentDeps } from './deps';
import { settle } from './fulfilment';
import { decideOrder } from './orders';
import { ageText, disputeTexts, texts } from './rules';

/**
 * Path 4 of issue 15: a supplier that answers 'wait' for ever, or is down for days, must not hold
 * a customer's money with no way out. Paid supplier orders waiting longer than ORDER_STUCK_HOURS
 * are listed for admins, who may accept (with a reply) or reject (refund) them once.
 */
export interface StuckDeps extends FulfilmentDeps {
  /** The supplier, asked once without retries: an admin is waiting on the answer. */
  lastAsk: SupplierClient;
  /** How long a paid supplier order waits before it is stuck (ORDER_STUCK_HOURS). */
  stuckMs: number;
}

/** How far back the admins are told of orders that became stuck (an order stuck longer is on the list anyway). */
const NOTICED_WITHIN_MS = 24 * 3600_000;

/** Tells the admins once of each order that became stuck lately (order.stuck); answers how many were told now. */
export async function noticeStuck(deps: StuckDeps): Promise<number> {
  const before = new Date(Date.now() - deps.stuckMs);
  const range = { from: new Date(before.getTime() - NOTICED_WITHIN_MS) };
  let told = 0;
  for (let page = 1; ; page++) {
    const [orders] = await deps.orders.stuck(before, range, page, 100);
    for (const order of orders) if (await deps.disputes.noticeStuck(order)) told++;
    if (orders.length < 100) break;
  }
  return told;
}

/** One page of the stuck orders placed within the dates, oldest first, and how many there are. */
export function stuckOrders(deps: StuckDeps, query: { page: number; limit: number; from?: Date; to?: Date }) {
  return deps.orders.stuck(new Date(Date.now() - deps.stuckMs), query, query.page, query.limit);
}

/** The supplier's answer on an order, or null when it does not know it or cannot be reached. */
async function askSupplier(deps: StuckDeps, orderId: string): Promise<SupplierOrder | null> {
  try {
    const [known] = await deps.lastAsk.orders([orderId], 'uuid');
    return known ?? null;
  } catch (err) {
    if (!(err instanceof SupplierError)) throw err;
    // A supplier down for days is the reason this list exists: the admin's decision still goes through.
    deps.logger.warn({ orderId, err: err.message }, 'the supplier could not be asked about a stuck order');
    return null;
  }
}

/**
 * An admin's decision on a stuck order. The supplier is asked one last time first: a final
 * answer it gives now is applied as usual (settle) and wins, answered 409 with what it said.
 * Otherwise the admin's decision is taken once (an insert in order_decisions; a rejection
 * refunds), and the order is watched for a while in case the supplier answers after all.
 */
export async function decideStuck(
  deps: StuckDeps,
  admin: SessionUser,
  input: { orderId: string; action: 'confirmed' | 'rejected'; replay?: string },
  key?: string,
): Promise<Order> {
  const failed = { success: false };
  const { orderId, action } = input;
  const replay = input.replay || null;
  const order = await deps.orders.findById(orderId);
  if (!order?.paid) throw notFound(texts.orderMissing, failed);
  if (key && (await claimActionKey(deps, admin, key, orderId, { on: 'stuck', action, replay })) === 'retry') {
    const [earlier] = await deps.orders.decisionsOf([orderId]);
    // The same admin's retry of a decision that was taken answers it again.
    if (earlier?.by === admin.id && earlier.action === action) return order;
  }
  if (order.status !== 'waiting') throw conflict(texts.alreadyDecided(order.status), failed);
  if (order.kind !== 'supplier' || order.createdAt.getTime() > Date.now() - deps.stuckMs) {
    throw conflict(disputeTexts.notStuck(ageText(deps.stuckMs)), failed);
  }

  const known = await askSupplier(deps, orderId);
  if (known) {
    await settle(deps, order, known);
    if (known.status === 'OK') throw conflict(disputeTexts.supplierCompleted(known.replay), failed);
    if (known.status === 'reject') throw conflict(disputeTexts.supplierRejected(known.replay), failed);
  }
  await deps.disputes.watch(orderId);
  const result = await decideOrder(deps, order, {
    action,
    replay,
    reason: action === 'rejected' ? 'Rejected by an admin' : null,
    by: admin.id,
  });
  if (!result.decided) throw conflict(texts.alreadyDecided(result.earlier!.action), failed);
  return result.order!;
}
