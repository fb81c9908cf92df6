import {
  badRequest,
  conflict,
  HttpError,
  keyedId,
  keyReused,
  notFound,
  requestFingerprint,
  type SessionUser,
} from '@raseed/kit';
import type { Dispute, DisputeKind, Resolution, ResolutionAction } from '../data/disputes';
import type { Order } from '../data/orders';
import { orderConfirmed, orderRejected } from '../events/published';
import type { FulfilmentDeps } from './deps';
import { disputeTexts } from './rules';

/**
 * Path 3 of issue 15: the supplier's last word on an order we settled without it. A placement
 * that timed out on its last try is refunded when the supplier does not know the order yet; it
 * may record it seconds later and complete it. A supplier may also take back an OK. So settled
 * supplier orders are watched (DisputeStore.watch) for ORDER_WATCH_HOURS, and what contradicts
 * our decision becomes a dispute, resolved once by an admin.
 */

/** The resolutions each kind of dispute allows. */
export const RESOLUTIONS: Record<DisputeKind, ResolutionAction[]> = {
  'completed-after-refund': ['deliver', 'write-off'],
  'rejected-after-ok': ['refund', 'write-off'],
};

/**
 * The id under which the wallet debits a delivered dispute's order a second time. The order's own
 * debit key was refunded, so the second debit needs a key of its own; the wallet takes any id of
 * up to 64 letters, digits, - or _, so '<order id>-redebit' gets the key 'order:<id>-redebit:debit',
 * which moves money once (and which a write-off claims with a void, see claimRedebit).
 */
export const redebitId = (orderId: string) => `${orderId}-redebit`;

/** Who recorded a resolution the wallet had decided when no admin's record followed (repairDisputes). */
const REPAIR = 'repair';

/**
 * Asks the supplier (by our uuids, 100 a call) about the watched orders and records a dispute
 * for each one whose answer contradicts the decision we took: OK for an order we refunded,
 * reject for one we confirmed. Answers how many disputes it recorded.
 */
export async function watchSupplier(deps: FulfilmentDeps): Promise<number> {
  const ids = await deps.disputes.watched();
  if (!ids.length) return 0;
  const watched = new Set(ids);
  const answers = (await deps.supplier.orders(ids, 'uuid')).filter(
    (a) => a.status !== 'wait' && a.uuid !== null && watched.has(a.uuid),
  );
  if (!answers.length) return 0;
  const answered = answers.map((a) => a.uuid!);
  const [decisions, orders] = await Promise.all([
    deps.orders.decisionsOf(answered),
    deps.orders.byIds(answered),
  ]);
  const statuses = new Map(orders.map((o) => [o._id.toString(), o.status]));
  // Only a decision whose effects all happened (its refund included: the status moves last) is
  // contradicted; one a crash cut off is finished by the repair first and asked about again later.
  const settled = new Map(
    decisions.filter((d) => statuses.get(d._id) === d.action).map((d) => [d._id, d.action]),
  );
  let opened = 0;
  for (const answer of answers) {
    // An order without a decision is still waiting: the ordinary sync applies what the supplier says.
    const decided = settled.get(answer.uuid!);
    const kind: DisputeKind | null =
      decided === 'rejected' && answer.status === 'OK'
        ? 'completed-after-refund'
        : decided === 'confirmed' && answer.status === 'reject'
          ? 'rejected-after-ok'
          : null;
    if (!kind) continue;
    const first = await deps.disputes.open({
      _id: answer.uuid!,
      kind,
      supplierReply: answer.replay,
      supplierOrderId: answer.orderId,
    });
    if (first) {
      opened++;
      deps.logger.warn(
        { orderId: answer.uuid, kind, supplierOrderId: answer.orderId },
        'supplier order disputed',
      );
    }
  }
  return opened;
}

/**
 * Checks an admin's Idempotency-Key for an action on an order: the same key again with the same
 * request is a retry ('retry'), with another request it is refused, and a new key is claimed.
 */
export async function claimActionKey(
  deps: FulfilmentDeps,
  admin: SessionUser,
  key: string,
  orderId: string,
  request: Record<string, string | null>,
): Promise<'first' | 'retry'> {
  const fingerprint = requestFingerprint({ ...request, orderId });
  const { first, record } = await deps.disputes.claimKey(keyedId(admin.id, key), orderId, fingerprint);
  if (!first && record.fingerprint !== fingerprint) throw keyReused({ success: false });
  return first ? 'first' : 'retry';
}

/**
 * For a dispute over a late completion, decides between delivering and writing off by the
 * wallet's second debit key (as an unpaid order's fate is decided by its debit key): 'deliver'
 * debits the customer again under it, 'write-off' claims it with a void, and whichever the
 * wallet recorded first is the resolution. A debit refused for a short balance records nothing
 * and is answered 422 with the wallet's text, so the admin can try again later or write off.
 */
async function claimRedebit(deps: FulfilmentDeps, order: Order, action: ResolutionAction) {
  const path = `/internal/orders/${redebitId(order._id.toString())}`;
  if (action === 'deliver') {
    try {
      await deps.wallet.post(`${path}/debit`, {
        userId: order.userId,
        amount: order.total,
        productName: order.productName,
      });
      return 'deliver';
    } catch (err) {
      if (err instanceof HttpError && err.status === 422)
        throw new HttpError(422, err.message, { success: false });
      if (err instanceof HttpError && err.fields.code === 'order_void') return 'write-off';
      throw err;
    }
  }
  const state = await deps.wallet.post<{ voided: boolean }>(`${path}/void`, { userId: order.userId });
  return state.voided ? 'write-off' : 'deliver';
}

/** The events a resolution announces: the order's new state when it changes one. */
function resolutionEvents(order: Order, dispute: Dispute, action: ResolutionAction) {
  if (action === 'deliver') return [orderConfirmed(order, dispute.supplierReply)];
  if (action === 'refund') return [orderRejected(order, disputeTexts.refundedAfterOk(dispute.supplierReply))];
  return [];
}

/**
 * Carries out a recorded resolution: a refund through the wallet (which refunds an order once),
 * then the order and the dispute follow the record. Safe to repeat.
 */
async function finish(deps: FulfilmentDeps, dispute: Dispute, resolution: Resolution): Promise<void> {
  const orderId = resolution._id;
  if (resolution.action === 'deliver') {
    await deps.orders.followResolution(orderId, {
      status: 'confirmed',
      replay: dispute.supplierReply,
      externalId: dispute.supplierOrderId,
      reason: null,
      decidedAt: resolution.at,
    });
  } else if (resolution.action === 'refund') {
    await deps.wallet.post(`/internal/orders/${orderId}/refund`);
    await deps.orders.followResolution(orderId, {
      status: 'rejected',
      reason: disputeTexts.refundedAfterOk(dispute.supplierReply),
      decidedAt: resolution.at,
    });
  }
  await deps.disputes.follow(resolution);
}

/**
 * An admin's resolution of a dispute, taken once (rule 9: the insert of a Resolution keyed by the
 * order id); another admin's, or a second one, is answered 409. With an Idempotency-Key, the
 * same admin's retry of the same request answers the first outcome.
 */
export async function resolveDispute(
  deps: FulfilmentDeps,
  admin: SessionUser,
  input: { orderId: string; action: ResolutionAction },
  key?: string,
): Promise<{ resolution: Resolution; order: Order }> {
  const failed = { success: false };
  const { orderId, action } = input;
  const [dispute, order] = await Promise.all([deps.disputes.find(orderId), deps.orders.findById(orderId)]);
  if (!dispute || !order) throw notFound(disputeTexts.notDisputed, failed);
  if (!RESOLUTIONS[dispute.kind].includes(action))
    throw badRequest(disputeTexts.actionsFor(dispute.kind), failed);
  const retry =
    key && (await claimActionKey(deps, admin, key, orderId, { on: 'dispute', action })) === 'retry';
  const earlier = await deps.disputes.resolutionOf(orderId);
  if (earlier) {
    if (!retry || earlier.by !== admin.id || earlier.action !== action)
      throw conflict(disputeTexts.alreadyResolved, failed);
    // The first request may have been cut off after its record: its effects are finished now.
    await finish(deps, dispute, earlier);
    return { resolution: earlier, order: (await deps.orders.findById(orderId))! };
  }

  const decided =
    dispute.kind === 'completed-after-refund' ? await claimRedebit(deps, order, action) : action;
  // The wallet's key holds the other resolution: its admin (or the repair) records it.
  if (decided !== action) throw conflict(disputeTexts.alreadyResolved, failed);
  const { first, record } = await deps.disputes.resolve(
    { _id: orderId, action, by: admin.id, at: new Date() },
    resolutionEvents(order, dispute, action),
  );
  // Losing the insert to the repair, which recorded what this request did in the wallet, is winning.
  if (!first && !(record.by === REPAIR && record.action === action))
    throw conflict(disputeTexts.alreadyResolved, failed);
  await finish(deps, dispute, record);
  return { resolution: record, order: (await deps.orders.findById(orderId))! };
}

/**
 * Finishes resolutions a crash cut off: a recorded one whose refund or order update did not
 * happen, and a late completion whose second debit (or void) the wallet holds but whose record
 * was never inserted. Safe to run at any time, on any number of instances.
 */
export async function repairDisputes(deps: FulfilmentDeps): Promise<number> {
  let fixed = 0;
  for (const { dispute, resolution } of await deps.disputes.pending()) {
    if (resolution) {
      await finish(deps, dispute, resolution);
      fixed++;
      continue;
    }
    if (dispute.kind !== 'completed-after-refund') continue;
    const state = await deps.wallet.get<{ debited: boolean; voided: boolean }>(
      `/internal/orders/${redebitId(dispute._id)}`,
    );
    if (!state.debited && !state.voided) continue;
    const order = await deps.orders.findById(dispute._id);
    if (!order) continue;
    const action: ResolutionAction = state.debited ? 'deliver' : 'write-off';
    const { record } = await deps.disputes.resolve(
      { _id: dispute._id, action, by: REPAIR, at: new Date() },
      resolutionEvents(order, dispute, action),
    );
    await finish(deps, dispute, record);
    fixed++;
  }
  return fixed;
}

/** A disputed order as admins read it: the order, and what the supplier said against it. */
export const disputeView = (dispute: Dispute) => ({
  kind: dispute.kind,
  supplier_reply: dispute.supplierReply,
  supplier_order_id: dispute.supplierOrderId,
  at: dispute.at,
  actions: RESOLUTIONS[dispute.kind],
});
