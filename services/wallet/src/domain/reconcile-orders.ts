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
  createdAt: string;
}

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
}

const ORDER_KEY = /^order:([0-9a-f]{24}):(debit|refund)$/;

/** Files a ledger entry under its order when its key is an order's debit or refund. */
export function fileOrderEntry(money: Map<string, OrderMoney>, entry: OrderEntry): boolean {
  const match = ORDER_KEY.exec(entry.key);
  if (!match) return false;
  const [, orderId, movement] = match as unknown as [string, string, 'debit' | 'refund'];
  money.set(orderId, { ...money.get(orderId), [movement]: entry });
  return true;
}

/**
 * Checks every order against the ledger, in the order the orders service lists them (by id):
 * a shown order was debited exactly its total; a debit belongs to an order that is shown, or
 * the key holds a void; a rejected paid order has exactly its debit refunded and no other
 * order any refund; every decision agrees with its order's status. Orders and decisions
 * younger than `graceMs` may still be on their way and are counted, not reported. What is left
 * in `money` afterwards moved for orders the orders service does not know.
 */
export async function checkOrders(
  orders: AsyncIterable<ReconciledOrder>,
  money: Map<string, OrderMoney>,
  { now, graceMs }: { now: number; graceMs: number },
): Promise<{ orders: number; inFlight: number; problems: string[] }> {
  const problems: string[] = [];
  let count = 0;
  let inFlight = 0;
  const young = (at: string | Date | null) => at !== null && now - new Date(at).getTime() < graceMs;
  for await (const order of orders) {
    count++;
    const { debit, refund } = money.get(order.id) ?? {};
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
    if (order.decision && order.decision !== order.status && !young(order.decidedAt)) {
      problems.push(`${at} was decided ${order.decision} but shows ${order.status}`);
    }
    const rejectedPaid = debited && (order.status === 'rejected' || order.decision === 'rejected');
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
  for (const [orderId, { debit, refund }] of money) {
    for (const entry of [debit, refund]) {
      if (!entry || entry.kind === 'void') continue;
      if (young(entry.createdAt)) inFlight++;
      else {
        problems.push(
          `account ${entry.account} seq ${entry.seq}: ${exact(entry.amount)} moved for order ${orderId}, which orders does not know`,
        );
      }
    }
  }
  return { orders: count, inFlight, problems };
}
