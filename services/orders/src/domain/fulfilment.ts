import { SupplierError, type SupplierOrder } from '@raseed/kit';
import type { Order } from '../data/orders';
import type { FulfilmentDeps } from './deps';
import { watchSupplier } from './disputes';
import { decideOrder, decideOrders } from './orders';

/** Answers decided in one go by the status sync: one call of the supplier's (at most 100 ids). */
const SETTLE_BATCH = 100;

export interface SyncResult {
  checked: number;
  confirmed: number;
  rejected: number;
  /** Settled orders the supplier now contradicts: listed for admins as disputed. */
  disputed: number;
}

/**
 * Applies what the supplier says of an order: records its order id and first reply, then
 * 'OK' confirms it and 'reject' rejects it with a refund (each decided once, rule 9). A
 * confirmed order is watched for a while, in case the supplier takes its OK back.
 */
export async function settle(deps: FulfilmentDeps, order: Order, answer: SupplierOrder): Promise<void> {
  if (order.externalId !== answer.orderId) {
    await deps.orders.markPlaced(order._id, answer.orderId, answer.replay);
  }
  if (answer.status !== 'wait') await decideBySupplier(deps, [{ order, answer }]);
}

/**
 * Decides orders by the supplier's final answers ('OK' or 'reject') in a few store calls
 * however many they are: the confirmed ones are watched first, then each is decided once
 * (rule 9). Answers the decisions taken here.
 */
async function decideBySupplier(deps: FulfilmentDeps, settled: { order: Order; answer: SupplierOrder }[]) {
  const confirmed = settled.filter((s) => s.answer.status === 'OK');
  await deps.disputes.watchAll(confirmed.map((s) => s.order._id.toString()));
  return decideOrders(
    deps,
    settled.map(({ order, answer }) => ({
      order,
      decision: {
        action: answer.status === 'OK' ? 'confirmed' : 'rejected',
        replay: answer.replay,
        reason: answer.status === 'reject' ? (answer.replay ?? 'Rejected by the supplier') : null,
        by: 'supplier',
      },
    })),
  );
}

/** Rejects an order the supplier will not fulfil; the wallet refunds it once. */
async function giveUp(deps: FulfilmentDeps, order: Order, reason: string): Promise<void> {
  deps.logger.warn({ orderId: order._id.toString(), reason }, 'supplier order rejected');
  await decideOrder(deps, order, { action: 'rejected', replay: null, reason, by: 'supplier' });
}

/**
 * Places a paid supplier order under its own id (the supplier's order_uuid), never twice: the
 * attempt is recorded before the call, and any later attempt first asks the supplier whether
 * the order reached it. A refusal rejects the order; a timeout or an outage is thrown for the
 * job to retry, and on the last attempt the order is rejected unless the supplier has it.
 */
export async function placeAtSupplier(
  deps: FulfilmentDeps,
  orderId: string,
  lastAttempt = false,
): Promise<Order | null> {
  const order = await deps.orders.findById(orderId);
  if (!order?.paid || order.kind !== 'supplier' || order.status !== 'waiting' || order.externalId) {
    return order;
  }
  const first = await deps.orders.recordPlacement(orderId);
  if (!first) {
    const [known] = await deps.supplier.orders([orderId], 'uuid');
    if (known) {
      await settle(deps, order, known);
      return deps.orders.findById(orderId);
    }
  }
  try {
    const placed = await deps.supplier.placeOrder({
      uuid: orderId,
      productId: order.supplierId ?? '',
      quantity: order.quantity,
      params: order.fields,
    });
    await settle(deps, order, placed);
  } catch (err) {
    if (!(err instanceof SupplierError)) throw err;
    if (err.kind === 'refused') {
      await giveUp(deps, order, `The supplier refused the order: ${err.message}`);
    } else if (lastAttempt) {
      // Before giving up, make sure the supplier did not take it after all (a late timeout).
      const [known] = await deps.supplier.orders([orderId], 'uuid');
      if (known) await settle(deps, order, known);
      else {
        // It may still record the order late: the supplier is asked about it for a while after the refund.
        await deps.disputes.watch(orderId);
        await giveUp(deps, order, `The supplier could not take the order: ${err.message}`);
      }
    } else {
      throw err;
    }
  }
  return deps.orders.findById(orderId);
}

/**
 * Asks the supplier about every waiting order it took (100 per call) and applies the answers;
 * first about the watched orders, so an order confirmed by this sync is asked about on the next.
 */
export async function syncStatuses(deps: FulfilmentDeps): Promise<SyncResult> {
  const disputed = await watchSupplier(deps);
  const waiting = await deps.orders.awaitingSupplier();
  const result: SyncResult = { checked: waiting.length, confirmed: 0, rejected: 0, disputed };
  if (!waiting.length) return result;
  const byExternalId = new Map(waiting.map((o) => [o.externalId!, o]));
  const settled = (await deps.supplier.orders([...byExternalId.keys()])).filter(
    (answer) => answer.status !== 'wait' && byExternalId.has(answer.orderId),
  );
  for (let i = 0; i < settled.length; i += SETTLE_BATCH) {
    const batch = settled
      .slice(i, i + SETTLE_BATCH)
      .map((answer) => ({ order: byExternalId.get(answer.orderId)!, answer }));
    for (const decision of await decideBySupplier(deps, batch)) {
      if (decision.action === 'confirmed') result.confirmed++;
      else result.rejected++;
    }
  }
  return result;
}
