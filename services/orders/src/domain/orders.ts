import {
  badRequest,
  conflict,
  HttpError,
  notFound,
  toDollars,
  type Logger,
  type ServiceClient,
  type SessionUser,
} from '@raseed/kit';
import { Types } from 'mongoose';
import { createHash } from 'node:crypto';
import type { Decision, Order, OrderStore } from '../data/orders';
import { joinParams, MAX_QUANTITY, paramValues, texts } from './rules';

/** The product an order is for, priced for the caller by catalog (GET /internal/products/{id}). */
export interface PricedProduct {
  id: string;
  name: string;
  kind: 'created' | 'supplier';
  supplierId: string | null;
  available: boolean;
  params: string[];
  qtyValues: { min: number; max: number } | null;
  /** Micro-dollars, the caller's discount applied. */
  unitPrice: number;
}

export interface OrderDeps {
  orders: OrderStore;
  catalog: ServiceClient;
  wallet: ServiceClient;
  logger: Logger;
  /** Tells the outbox relay that an event is waiting. */
  published: () => void;
  /** Hands a paid supplier order to the placement job; false when a job has it already. */
  fulfil: (order: Order) => Promise<boolean>;
}

export interface Draft {
  product_id: string;
  quantity: number;
  params: string | Record<string, string>;
}

export type Placed = { status: number; body: Record<string, unknown> };

const fail = (status: number, error: string): Placed => ({ status, body: { orderStatus: false, error } });

/** Checks a draft against its product (params, quantity) and answers the order to record. */
async function price(deps: OrderDeps, user: SessionUser, draft: Draft) {
  const product = await deps.catalog
    .get<PricedProduct>(`/internal/products/${encodeURIComponent(draft.product_id)}?userId=${user.id}`)
    .catch((err: unknown) => {
      if (err instanceof HttpError && err.status === 404)
        throw badRequest(texts.productMissing, { orderStatus: false });
      throw err;
    });
  const failed = { orderStatus: false };
  if (!product.available) throw badRequest(texts.unavailable, failed);
  const values = paramValues(draft.params);
  if (product.params.some((label) => !values.get(label))) throw badRequest(texts.fillAll, failed);
  const { min, max } = product.qtyValues ?? { min: 1, max: MAX_QUANTITY };
  if (!Number.isInteger(draft.quantity) || draft.quantity < min || draft.quantity > max) {
    throw badRequest(texts.quantity(min, max), failed);
  }
  const total = product.unitPrice * draft.quantity;
  if (!Number.isSafeInteger(total) || total <= 0) throw badRequest(texts.unavailable, failed);
  return {
    userId: user.id,
    username: user.username,
    productId: product.id,
    productName: product.name,
    kind: product.kind,
    supplierId: product.supplierId,
    quantity: draft.quantity,
    unitPrice: product.unitPrice,
    total,
    params: joinParams(product.params, values),
    fields: Object.fromEntries(product.params.map((label) => [label, values.get(label) ?? ''])),
  };
}

/**
 * The order id a customer's Idempotency-Key stands for: the same key from the same customer
 * always names the same order, so inserting the order is what claims the key (rule 9).
 */
export const keyedOrderId = (userId: string, key: string) =>
  createHash('sha256').update(`${userId}:${key}`).digest('hex').slice(0, 24);

/**
 * Places an order: priced on the server, recorded unpaid, debited by the wallet under the
 * order's id, then shown and announced. With an Idempotency-Key a repeat answers the first
 * request's outcome and places nothing.
 */
export async function placeOrder(
  deps: OrderDeps,
  user: SessionUser,
  draft: Draft,
  key?: string,
): Promise<Placed> {
  const { orders } = deps;
  // Checked first: a draft that fails its checks records nothing, and its key stays free.
  const priced = await price(deps, user, draft);
  const opened = await orders.open(
    key ? keyedOrderId(user.id, key) : new Types.ObjectId().toString(),
    priced,
  );
  return opened.first ? pay(deps, opened.order) : answerFor(deps, opened.order);
}

/**
 * Has the wallet debit the order under its id (idempotent: a repeat answers the first
 * debit), then shows and announces it, and hands a supplier order to its placement job.
 */
async function pay(deps: OrderDeps, order: Order): Promise<Placed> {
  const orderId = order._id.toString();
  let balance: number;
  try {
    ({ balance } = await deps.wallet.post<{ balance: number }>(`/internal/orders/${orderId}/debit`, {
      userId: order.userId,
      amount: order.total,
      productName: order.productName,
    }));
  } catch (err) {
    if (err instanceof HttpError && err.status < 500) {
      await deps.orders.markFailed(order, { status: err.status, error: err.message });
      return fail(err.status, err.message);
    }
    // Unknown whether the debit happened: a retry with the same key, or the repair, finishes it.
    throw err;
  }
  const paid = order.paid ? order : await deps.orders.markPaid(order);
  deps.published();
  if (paid.kind === 'supplier') await deps.fulfil(paid);
  return {
    status: 201,
    body: { orderStatus: true, message: texts.placed, orderId, balance: toDollars(balance) },
  };
}

/**
 * The outcome of the order a repeated Idempotency-Key names: the first answer when it is
 * known; otherwise (the first request is still on its way, or was cut off) the payment
 * step again, which the wallet's idempotent debit makes safe.
 */
async function answerFor(deps: OrderDeps, order: Order): Promise<Placed> {
  if (order.failed) return fail(order.failed.status, order.failed.error);
  if (order.paid) {
    return { status: 201, body: { orderStatus: true, message: texts.placed, orderId: order._id.toString() } };
  }
  return pay(deps, order);
}

/**
 * Takes a decision on an order once (rule 9) and carries out its effects: a rejection gives
 * the money back (the wallet refunds an order once), then the order's status follows.
 */
export async function decideOrder(
  deps: OrderDeps,
  orderId: string,
  decision: Omit<Decision, '_id' | 'at' | 'applied'>,
): Promise<{ decided: boolean; order: Order | null; earlier?: Decision }> {
  const outcome = await deps.orders.decide(orderId, decision);
  if (!outcome.decided)
    return { decided: false, order: await deps.orders.findById(orderId), earlier: outcome.earlier };
  return { decided: true, order: await apply(deps, outcome.decision) };
}

async function apply(deps: OrderDeps, decision: Decision): Promise<Order | null> {
  if (decision.action === 'rejected') await deps.wallet.post(`/internal/orders/${decision._id}/refund`);
  const order = await deps.orders.follow(decision);
  deps.published();
  return order;
}

/** Admin decisions on a created product's order. */
export async function adminDecision(
  deps: OrderDeps,
  admin: SessionUser,
  input: { orderId: string; action: 'confirmed' | 'rejected'; replay?: string },
) {
  const failed = { success: false };
  const order = await deps.orders.findById(input.orderId);
  if (!order?.paid) throw notFound(texts.orderMissing, failed);
  if (order.externalId || order.kind === 'supplier') throw conflict(texts.bySupplier, failed);
  const result = await decideOrder(deps, input.orderId, {
    action: input.action,
    replay: input.replay || null,
    reason: input.action === 'rejected' ? 'Rejected by an admin' : null,
    by: admin.id,
  });
  if (!result.decided) throw conflict(texts.alreadyDecided(result.earlier!.action), failed);
  return result.order!;
}

/**
 * Finishes what a crash cut off: decisions whose effects did not all happen, orders whose
 * payment is unknown (paid by the wallet → shown and announced; not paid → left unshown as
 * failed), and paid supplier orders no placement job holds. Safe to run at any time; each
 * step is idempotent.
 */
export async function repair(deps: OrderDeps, unpaidAfterMs: number): Promise<number> {
  let fixed = 0;
  for (const decision of await deps.orders.unapplied(5_000)) {
    await apply(deps, decision);
    fixed++;
  }
  for (const order of await deps.orders.unpaid(unpaidAfterMs)) {
    const state = await deps.wallet.get<{ debited: boolean }>(`/internal/orders/${order._id.toString()}`);
    if (state.debited) {
      const paid = await deps.orders.markPaid(order);
      deps.published();
      if (paid.kind === 'supplier') await deps.fulfil(paid);
    } else {
      // A 4xx: a retry of the same request should not try again, the customer should order again.
      await deps.orders.markFailed(order, { status: 409, error: texts.cutOff });
    }
    fixed++;
  }
  for (const order of await deps.orders.awaitingPlacement(unpaidAfterMs)) {
    if (await deps.fulfil(order)) fixed++;
  }
  return fixed;
}
