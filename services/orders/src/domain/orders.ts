import {
  ACCOUNT_DELETED,
  badRequest,
  conflict,
  HttpError,
  keyedId,
  keyReused,
  notFound,
  productNameText,
  requestFingerprint,
  toDollars,
  type Logger,
  type ServiceClient,
  type SessionUser,
} from '@raseed/kit';
import { Types } from 'mongoose';
import type { CodeStore } from '../data/codes';
import type { StockLevels } from '../data/stock-levels';
import {
  PAID,
  paidAsKnown,
  type Decision,
  type Failure,
  type Order,
  type OrderStore,
  type Shown,
} from '../data/orders';
import { orderPlaced } from '../events/published';
import type { DeletedUsers } from '../data/users';
import { codeTexts } from './codes';
import type { CatalogPrices } from './prices';
import { joinParams, MAX_QUANTITY, paramValues, texts } from './rules';

export interface OrderDeps {
  orders: OrderStore;
  /** Created products' stocks of codes, delivered the moment an order is paid. */
  codes: CodeStore;
  /** Their levels as the store shows them, and their admins' settings. */
  stock: StockLevels;
  /** Products priced for their buyers by catalog. */
  prices: CatalogPrices;
  wallet: ServiceClient;
  logger: Logger;
  /** Accounts deleted since (user.deleted): they place no new orders. */
  deleted: DeletedUsers;
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
  const product = await deps.prices.of(draft.product_id, user.id);
  const failed = { orderStatus: false };
  if (!product) throw badRequest(texts.productMissing, failed);
  if (!product.available) throw badRequest(texts.unavailable, failed);
  const values = paramValues(draft.params);
  if (product.params.some((label) => !values.get(label))) throw badRequest(texts.fillAll, failed);
  const { min, max } = product.qtyValues ?? { min: 1, max: MAX_QUANTITY };
  if (!Number.isInteger(draft.quantity) || draft.quantity < min || draft.quantity > max) {
    throw badRequest(texts.quantity(min, max), failed);
  }
  const total = product.unitPrice * draft.quantity;
  if (!Number.isSafeInteger(total) || total <= 0) throw badRequest(texts.unavailable, failed);
  const stocked = product.kind === 'created' && (await sellsFromStock(deps, product.id));
  return {
    stocked,
    userId: user.id,
    username: user.username,
    productId: product.id,
    productName: productNameText(product.name),
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
 * Whether an order for a created product is delivered from its stock of codes: it has one, and
 * either a code to sell or no admin taking its orders by hand once it is out (then it waits for
 * an admin, as an order of a product without codes does).
 */
async function sellsFromStock(deps: OrderDeps, productId: string): Promise<boolean> {
  if (!(await deps.codes.stocked(productId))) return false;
  const { manualWhenOut } = await deps.stock.settingsOf(productId);
  return !manualWhenOut || (await deps.stock.hasAvailable(productId));
}

/** What a draft asks for, whatever the form of its params, for the Idempotency-Key's check. */
export const draftFingerprint = (draft: Draft) =>
  requestFingerprint({
    product_id: draft.product_id,
    quantity: draft.quantity,
    params: JSON.stringify([...paramValues(draft.params)].sort(([a], [b]) => a.localeCompare(b))),
  });

/**
 * Places an order: priced on the server, recorded unpaid, debited by the wallet under the
 * order's id, then shown and announced. With an Idempotency-Key a repeat of the same request
 * answers the first request's outcome and places nothing; another request under the key is refused.
 */
export async function placeOrder(
  deps: OrderDeps,
  user: SessionUser,
  draft: Draft,
  key?: string,
): Promise<Placed> {
  const { orders } = deps;
  // A deleted account's session may outlive it for a moment; its earlier orders still answer.
  // The price is asked for meanwhile, and the account's refusal comes first.
  const checkedPrice = async () => {
    const pricing = price(deps, user, draft);
    pricing.catch(() => undefined);
    if (await deps.deleted.has(user.id)) throw notFound(ACCOUNT_DELETED, { orderStatus: false });
    return pricing;
  };
  if (!key) {
    const opened = await orders.open(new Types.ObjectId().toString(), await checkedPrice(), null);
    return pay(deps, opened.order);
  }
  const id = keyedId(user.id, key);
  const fingerprint = draftFingerprint(draft);
  // The insert under the key finds a repeat (rule 9), so a first request, the usual case, reads
  // nothing before it. Checked first: a draft that fails its checks records nothing, and its key
  // stays free; a repeat whose checks fail now (the product since removed, the account deleted,
  // catalog away) still answers its first request's outcome.
  let priced: Awaited<ReturnType<typeof price>>;
  try {
    priced = await checkedPrice();
  } catch (err) {
    const earlier = await orders.findById(id).catch(() => null);
    if (earlier) return answerFor(deps, earlier, fingerprint);
    throw err;
  }
  const opened = await orders.open(id, priced, fingerprint);
  return opened.first ? pay(deps, opened.order) : answerFor(deps, opened.order, fingerprint);
}

/**
 * Has the wallet debit the order under its id (idempotent: a repeat answers the first debit),
 * the debit carrying the order's order.placed (rule 11: the insert that decides it is paid
 * announces it), then shows the order paid. Its event hands a supplier order to its placement
 * job. A refused debit decides the order's fate by a void (see decideUnpaid). An order from a
 * stock of codes claims its codes first: without enough it is voided 'Out of stock' (nothing is
 * charged); paid, it is confirmed with them at once (deliver).
 */
async function pay(deps: OrderDeps, order: Order): Promise<Placed> {
  const orderId = order._id.toString();
  let claimed: string[] | undefined;
  if (order.stocked) {
    claimed = await deps.codes.claim(orderId, order.productId, order.quantity);
    deps.stock.changed(order.productId, order.productName);
    if (claimed.length < order.quantity) {
      const fate = await decideUnpaid(deps, order, { status: 409, error: codeTexts.outOfStock });
      // A debit that got there first (an earlier attempt of this order) keeps what it claimed.
      if (fate.fate === 'void') await releaseCodes(deps, order);
      return fateAnswer(deps, order, fate);
    }
  }
  let fate: Shown;
  let balance: number | undefined;
  try {
    ({ balance } = await deps.wallet.post<{ balance: number }>(`/internal/orders/${orderId}/debit`, {
      userId: order.userId,
      amount: order.total,
      productName: order.productName,
      announce: orderPlaced(order),
    }));
    await deps.orders.follow(order._id, PAID);
    fate = PAID;
  } catch (err) {
    // Unknown whether the debit happened: a retry with the same key, or the repair, finishes it.
    if (!(err instanceof HttpError) || err.status >= 500) throw err;
    fate = await decideUnpaid(deps, order, { status: err.status, error: err.message });
  }
  if (order.stocked) await (fate.fate === 'paid' ? deliver(deps, order, claimed) : releaseCodes(deps, order));
  return fateAnswer(deps, order, fate, balance);
}

/** Gives an order's codes back to its stock, which is counted again. */
async function releaseCodes(deps: OrderDeps, order: Order): Promise<void> {
  await deps.codes.release(order._id.toString());
  deps.stock.changed(order.productId, order.productName);
}

/** Who delivers an order from stock, in its decision. */
export const FROM_STOCK = 'stock';

/**
 * Confirms a paid order from stock with the codes it claimed (a decision taken once; `claimed`
 * when the caller has just claimed them, else they are read). The order's reply shows them
 * masked; its owner reveals them (GET /api/orders/codes/{id}).
 */
async function deliver(deps: OrderDeps, order: Order, claimed?: string[]): Promise<void> {
  const codes = await deps.codes.sealedOf(order._id.toString(), claimed);
  if (codes.length < order.quantity) return; // left for an admin; never happens to a paid order
  const masks = codes.map((c) => c.mask).join(', ');
  await decideOrder(deps, order, {
    action: 'confirmed',
    replay: `Delivered: ${masks}. Reveal the full code in My Orders.`,
    reason: null,
    by: FROM_STOCK,
  });
}

/**
 * Decides the fate of an order the wallet has not debited as far as we know: its debit key is
 * claimed with a void, so a debit still on its way (a stalled request, a retry) finds the key
 * taken and moves nothing; a debit that got there first makes the order paid instead.
 */
async function decideUnpaid(deps: OrderDeps, order: Order, failed: Failure): Promise<Shown> {
  const state = await deps.wallet.post<{ voided: boolean }>(`/internal/orders/${order._id.toString()}/void`, {
    userId: order.userId,
  });
  return deps.orders.settle(order, state.voided ? { fate: 'void', failed } : { fate: 'paid', failed: null });
}

/** The answer to the order's placement once its fate is known (its order.placed event hands a supplier order on: onOrderPlaced). */
async function fateAnswer(deps: OrderDeps, order: Order, fate: Shown, balance?: number): Promise<Placed> {
  if (fate.fate === 'void') {
    const failed = fate.failed ?? { status: 409, error: texts.cutOff };
    return fail(failed.status, failed.error);
  }
  return {
    status: 201,
    body: {
      orderStatus: true,
      message: texts.placed,
      orderId: order._id.toString(),
      ...(balance !== undefined && { balance: toDollars(balance) }),
    },
  };
}

/**
 * Hands a paid supplier order to its placement job, on its order.placed event. The event is born
 * with the order's debit (or its paid fate), so the order is paid; it may arrive before the order
 * shows it, which it then follows first (the job reads it). While the queue is away the repair
 * does it later.
 */
export async function handOff(deps: OrderDeps, orderId: string): Promise<void> {
  const order = await deps.orders.findById(orderId);
  if (order?.kind !== 'supplier' || order.externalId) return;
  if (!order.paid) await deps.orders.follow(order._id, PAID);
  await deps.fulfil({ ...order, paid: true }).catch((err: unknown) => {
    deps.logger.warn(
      { err, orderId: order._id.toString() },
      'placement not queued; the repair will queue it',
    );
  });
}

/**
 * The outcome of the order a repeated Idempotency-Key names: the first answer when its fate is
 * known; otherwise (the first request is still on its way, or was cut off) the payment step
 * again, which the wallet's idempotent debit makes safe.
 */
async function answerFor(deps: OrderDeps, order: Order, fingerprint: string): Promise<Placed> {
  // Orders recorded before fingerprints were kept have none to compare.
  if (order.fingerprint && order.fingerprint !== fingerprint) throw keyReused({ orderStatus: false });
  if (order.failed) return fail(order.failed.status, order.failed.error);
  if (order.paid) {
    return { status: 201, body: { orderStatus: true, message: texts.placed, orderId: order._id.toString() } };
  }
  const fate = await deps.orders.fateOf(order._id.toString());
  if (fate) {
    await deps.orders.follow(order._id, fate);
    return fateAnswer(deps, order, fate);
  }
  return pay(deps, order);
}

/**
 * Takes a decision on an order once (rule 9) and carries out its effects: a rejection gives
 * the money back (the wallet refunds an order once), then the order's status follows.
 */
export async function decideOrder(
  deps: OrderDeps,
  order: Order,
  decision: Omit<Decision, '_id' | 'at'>,
): Promise<{ decided: boolean; order: Order | null; earlier?: Decision }> {
  const outcome = await deps.orders.decide(order, decision);
  if (!outcome.decided)
    return {
      decided: false,
      order: await deps.orders.findById(order._id.toString()),
      earlier: outcome.earlier,
    };
  return { decided: true, order: await apply(deps, outcome.decision) };
}

/**
 * Orders are independent of each other: the effects of several decisions are carried out at once,
 * which also lets the store commit their writes together.
 */
const APPLY_AT_ONCE = 16;

/**
 * Takes decisions on many orders in a few store calls (each still once, rule 9) and carries out
 * the effects of those taken here, several orders at a time; answers them. Each order's status
 * follows its decision without being read again: the caller's copy has what it keeps.
 */
export async function decideOrders(
  deps: OrderDeps,
  decisions: { order: Order; decision: Omit<Decision, '_id' | 'at'> }[],
): Promise<Decision[]> {
  const taken = await deps.orders.decideAll(decisions);
  const orders = new Map(decisions.map(({ order }) => [order._id.toString(), order]));
  for (let i = 0; i < taken.length; i += APPLY_AT_ONCE) {
    await Promise.all(
      taken.slice(i, i + APPLY_AT_ONCE).map(async (decision) => {
        await effects(deps, decision);
        await deps.orders.followDecision(decision, orders.get(decision._id)!);
      }),
    );
  }
  return taken;
}

/** What a decision does before the order's status follows it: a rejection's refund (once, by the wallet). */
async function effects(deps: OrderDeps, decision: Decision): Promise<void> {
  if (decision.action === 'rejected') await deps.wallet.post(`/internal/orders/${decision._id}/refund`);
}

async function apply(deps: OrderDeps, decision: Decision): Promise<Order | null> {
  await effects(deps, decision);
  return deps.orders.apply(decision);
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
  const result = await decideOrder(deps, order, {
    action: input.action,
    replay: input.replay || null,
    reason: input.action === 'rejected' ? 'Rejected by an admin' : null,
    by: admin.id,
  });
  if (!result.decided) throw conflict(texts.alreadyDecided(result.earlier!.action), failed);
  return result.order!;
}

/**
 * Finishes what a crash cut off: decisions whose effects did not all happen, orders whose fate
 * is not shown yet (decided by a void unless the wallet's debit got there first: see
 * decideUnpaid), and paid supplier orders no placement job holds. Safe to run at any time, on
 * any number of instances at once; each step is idempotent.
 */
export async function repair(deps: OrderDeps, unpaidAfterMs: number): Promise<number> {
  let fixed = 0;
  for (const decision of await deps.orders.undone(5_000)) {
    await apply(deps, decision);
    fixed++;
  }
  for (const order of await deps.orders.unpaid(unpaidAfterMs)) {
    // A fate recorded before is followed again; a new one (the void) is followed as it is recorded.
    const known = await deps.orders.fateOf(order._id.toString());
    if (known) await deps.orders.follow(order._id, known);
    else await decideUnpaid(deps, order, { status: 409, error: texts.cutOff });
    fixed++;
  }
  for (const order of await deps.orders.awaitingPlacement(unpaidAfterMs)) {
    if (await deps.fulfil(order)) fixed++;
  }
  fixed += await repairClaims(deps, unpaidAfterMs);
  return fixed;
}

/** How far back the repair looks at codes claimed by orders. */
const CLAIMS_WATCHED_MS = 24 * 3600_000;

/**
 * Codes claimed by orders a crash cut off: a paid order not yet confirmed gets them delivered;
 * a voided one gives them back. An order with no fate yet is left to the unpaid repair above.
 */
async function repairClaims(deps: OrderDeps, unpaidAfterMs: number): Promise<number> {
  let fixed = 0;
  for (const orderId of await deps.codes.recentClaimants(new Date(Date.now() - CLAIMS_WATCHED_MS))) {
    const order = await deps.orders.findById(orderId);
    if (!order) continue;
    const fate = await deps.orders.fateOf(orderId);
    if (fate?.fate === 'void') {
      await releaseCodes(deps, order);
      fixed++;
    } else if (
      paidAsKnown(order, fate) &&
      order.status === 'waiting' &&
      order.createdAt.getTime() < Date.now() - Math.min(unpaidAfterMs, 30_000)
    ) {
      await deliver(deps, order);
      fixed++;
    }
  }
  return fixed;
}
