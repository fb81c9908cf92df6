import { toDollars } from '@raseed/kit';

/** Exact to the micro-dollar, so a difference of one is visible. */
const exact = (micros: number) => toDollars(micros).toFixed(6);

/** An order as the orders service reports it (GET /internal/orders/reconcile). */
export interface ReconciledOrder {
  id: string;
  userId: string;
  total: number;
  paid: boolean;
  fate: 'paid' | 'void' | null;
  status: 'waiting' | 'confirmed' | 'rejected';
  decision: 'confirmed' | 'rejected' | null;
  decidedAt: string | null;
  /** What the supplier said against the decision, and how an admin resolved it (null while open). */
  dispute: { kind: 'completed-after-refund' | 'rejected-after-ok'; resolution: Resolution | null } | null;
  createdAt: string;
}

type Resolution = 'deliver' | 'refund' | 'write-off';

/** What reconcile needs to know of a ledger entry that moved money for an order. */
export interface OrderEntry {
  account: string;
  seq: number;
  key: string;
  kind?: string;
  amount: number;
  createdAt: Date;
}

export interface OrderMoney {
  debit?: OrderEntry;
  refund?: OrderEntry;
  /** The second debit of a dispute resolved by delivering the supplier's late code (or its void). */
  redebit?: OrderEntry;
}

const ORDER_KEY = /^order:([0-9a-f]{24})(-redebit)?:(debit|refund)$/;

/** Files a ledger entry under its order when its key is an order's debit or refund. */
export function fileOrderEntry(money: Map<string, OrderMoney>, entry: OrderEntry): boolean {
  const match = ORDER_KEY.exec(entry.key);
  if (!match) return false;
  const [, orderId, second, movement] = match as unknown as [string, string, string | undefined, string];
  const slot = second ? (movement === 'debit' ? 'redebit' : null) : (movement as 'debit' | 'refund');
  if (!slot) return false;
  money.set(orderId, { ...money.get(orderId), [slot]: entry });
  return true;
}

/**
 * Checks every order against the ledger, in the order the orders service lists them (by id):
 * a shown order was debited exactly its total; a debit belongs to an order that is shown, or
 * the key holds a void; a rejected paid order has exactly its debit refunded and no other
 * order any refund; every decision (or the resolution of a dispute over it) agrees with its
 * order's status, and only an order delivered after a dispute was debited a second time. Orders
 * and decisions younger than `graceMs` may still be on their way and are counted, not reported.
 * What is left in `money` afterwards moved for orders the orders service does not know. Open
 * disputes are listed with what is at stake, for admins to resolve.
 */
export async function checkOrders(
  orders: AsyncIterable<ReconciledOrder>,
  money: Map<string, OrderMoney>,
  { now, graceMs }: { now: number; graceMs: number },
): Promise<{ orders: number; inFlight: number; problems: string[]; disputes: string[] }> {
  const problems: string[] = [];
  const disputes: string[] = [];
  let count = 0;
  let inFlight = 0;
  const young = (at: string | Date | null) => at !== null && now - new Date(at).getTime() < graceMs;
  for await (const order of orders) {
    count++;
    const { debit, refund, redebit } = money.get(order.id) ?? {};
    money.delete(order.id);
    const at = `order ${order.id} (account ${order.userId})`;
    const debited = debit && debit.kind !== 'void' ? debit : undefined;
    const shown = order.paid || order.fate === 'paid';
    // Placed while reconcile read the ledger: its debit may be newer than what was read.
    if (young(order.createdAt)) {
      inFlight++;
      continue;
    }
    if (shown && !debited)
      problems.push(`${at} is shown as paid but holds no debit (${exact(order.total)} at stake)`);
    if (debited && !shown) {
      problems.push(
        `${at} was debited ${exact(debited.amount)} (seq ${debited.seq}) but is not shown (fate ${order.fate ?? 'none'})`,
      );
    }
    if (debited && debited.amount !== order.total) {
      problems.push(`${at} was debited ${exact(debited.amount)}, not its total ${exact(order.total)}`);
    }
    if (order.fate === 'void' && debit?.kind !== 'void') {
      problems.push(
        `${at} is void but its debit key holds ${debit ? `a debit of ${exact(debit.amount)}` : 'nothing'}`,
      );
    }
    const resolution = order.dispute?.resolution ?? null;
    if (order.dispute && !resolution) {
      disputes.push(`${at}: ${order.dispute.kind}, ${exact(order.total)} at stake`);
    }
    // A dispute's resolution overrides the decision it disputes.
    const settled =
      resolution === 'deliver' ? 'confirmed' : resolution === 'refund' ? 'rejected' : order.decision;
    if (settled && settled !== order.status && !young(order.decidedAt)) {
      problems.push(
        `${at} was ${resolution ? `resolved ${resolution}` : `decided ${order.decision}`} but shows ${order.status}`,
      );
    }
    const redebited = redebit && redebit.kind !== 'void' ? redebit : undefined;
    if (resolution === 'deliver' && redebited?.amount !== order.total) {
      problems.push(
        `${at} was delivered after a dispute but debited again ${redebited ? exact(redebited.amount) : 'nothing'}, not ${exact(order.total)}`,
      );
    }
    if (redebited && resolution !== 'deliver' && !young(redebited.createdAt)) {
      problems.push(
        `${at} was debited a second time ${exact(redebited.amount)} (seq ${redebited.seq}) without a delivered dispute`,
      );
    }
    const rejectedPaid =
      debited && (order.status === 'rejected' || order.decision === 'rejected' || resolution === 'refund');
    if (rejectedPaid && !refund && !young(order.decidedAt)) {
      problems.push(`${at} was rejected after payment but has no refund (${exact(debited.amount)} at stake)`);
    }
    if (refund && !rejectedPaid) {
      problems.push(`${at} is ${order.status} but was refunded ${exact(refund.amount)} (seq ${refund.seq})`);
    }
    if (refund && debited && refund.amount !== debited.amount) {
      problems.push(`${at} was refunded ${exact(refund.amount)} for a debit of ${exact(debited.amount)}`);
    }
  }
  for (const [orderId, { debit, refund, redebit }] of money) {
    for (const entry of [debit, refund, redebit]) {
      if (!entry || entry.kind === 'void') continue;
      if (young(entry.createdAt)) inFlight++;
      else {
        problems.push(
          `account ${entry.account} seq ${entry.seq}: ${exact(entry.amount)} moved for order ${orderId}, which orders does not know`,
        );
      }
    }
  }
  return { orders: count, inFlight, problems, disputes };
}
