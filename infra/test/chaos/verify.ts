import type { Connection } from 'mongoose';
import type { ConfirmedPayment } from '../../../services/wallet/src/domain/reconcile';
import type { ReconciledOrder } from '../../../services/wallet/src/domain/reconcile-orders';
import { statusOf } from '../../supplier-sim/src/supplier';
import type { Stack } from './stack';

/** Exact, to the micro-dollar. */
const exact = (micros: number) => (micros / 1_000_000).toFixed(6);

export interface Databases {
  wallet: Connection;
  orders: Connection;
}

async function internal<T>(stack: Stack, url: string): Promise<T> {
  const res = await fetch(url, {
    headers: { 'x-service-token': stack.serviceToken },
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Every order, with its fate, as the orders service reports it to reconcile. */
async function allOrders(stack: Stack): Promise<ReconciledOrder[]> {
  const all: ReconciledOrder[] = [];
  for (let after: string | null = null; ;) {
    const page: { orders: ReconciledOrder[]; next: string | null } = await internal(
      stack,
      `${stack.services.orders.url}/internal/orders/reconcile?limit=500${after ? `&after=${after}` : ''}`,
    );
    all.push(...page.orders);
    if (!page.next) return all;
    after = page.next;
  }
}

/** Every confirmed payment (top-ups, admin credits and withdrawals), as payments recorded them. */
async function confirmedPayments(stack: Stack): Promise<ConfirmedPayment[]> {
  const all: ConfirmedPayment[] = [];
  for (let page = 1; ; page++) {
    const answer = await internal<{ payments: ConfirmedPayment[]; totalPages: number }>(
      stack,
      `${stack.services.payments.url}/internal/payments/confirmed?page=${page}&limit=500`,
    );
    all.push(...answer.payments);
    if (page >= answer.totalPages) return all;
  }
}

/** The ids on the admins' stuck list. */
async function stuckIds(stack: Stack): Promise<Set<string>> {
  const ids = new Set<string>();
  const admin = stack.admins[0]!;
  for (let page = 1; ; page++) {
    const res = await fetch(`${stack.services.orders.url}/api/orders/stuck?limit=100&page=${page}`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    if (!res.ok) throw new Error(`the stuck list answered ${res.status}`);
    const body = (await res.json()) as { orders: { id: string }[]; totalPages: number };
    for (const order of body.orders) ids.add(order.id);
    if (page >= body.totalPages) return ids;
  }
}

export interface Verdict {
  problems: string[];
  figures: Record<string, number>;
}

/**
 * What must hold once the faults have stopped and the repairs have settled: every customer's
 * balance is what the services' own records say it should be (confirmed credits minus
 * confirmed withdrawals minus the totals of shown orders not rejected; a rejected one was
 * refunded), and every order has a fate: final, waiting for an admin, waiting at a supplier
 * that still works on it, or on the stuck list; none debited and hidden.
 */
export async function verifyMoney(stack: Stack, dbs: Databases): Promise<Verdict> {
  const problems: string[] = [];
  const [orders, payments, stuck] = await Promise.all([
    allOrders(stack),
    confirmedPayments(stack),
    stuckIds(stack),
  ]);
  const stored = new Map(
    (await dbs.orders.collection('orders').find({}).toArray()).map((o) => [String(o._id), o.kind as string]),
  );
  const entries = dbs.wallet.collection<{
    account: string;
    seq: number;
    key: string;
    kind?: string;
    balance: number;
  }>('entries');
  const atSupplier = new Map(stack.catalog.sim.control.placed.map((o) => [o.uuid, o]));

  const expected = new Map<string, number>(stack.customers.map((c) => [c.id, 0]));
  const add = (userId: string, micros: number) => expected.set(userId, (expected.get(userId) ?? 0) + micros);
  for (const payment of payments)
    add(payment.userId, payment.type === 'IN' ? payment.amount : -payment.amount);

  const figures: Record<string, number> = {
    orders: orders.length,
    'confirmed payments': payments.length,
    'on the stuck list': stuck.size,
  };
  const count = (name: string) => (figures[name] = (figures[name] ?? 0) + 1);
  for (const order of orders) {
    const shown = order.paid || order.fate === 'paid';
    const kind = stored.get(order.id) ?? 'unknown';
    const at = `order ${order.id} (${kind}, account ${order.userId}, ${exact(order.total)})`;
    if (!shown) {
      if (order.fate !== 'void') problems.push(`${at} is neither shown nor void`);
      else count('orders void');
      const debit = await entries.findOne({ key: `order:${order.id}:debit` });
      if (debit && debit.kind !== 'void') problems.push(`${at} is hidden but was debited (seq ${debit.seq})`);
      continue;
    }
    if (order.status !== 'rejected') add(order.userId, -order.total);
    count(`orders ${order.status}`);
    if (order.status !== 'waiting') continue;
    if (kind === 'created') continue;
    const supplierOrder = atSupplier.get(order.id);
    const live = supplierOrder && statusOf(supplierOrder) === 'wait';
    if (!live && !stuck.has(order.id))
      problems.push(
        `${at} is paid and waiting, but the supplier ${supplierOrder ? `answers ${statusOf(supplierOrder)}` : 'does not have it'} and it is not on the stuck list`,
      );
  }

  for (const customer of stack.customers) {
    const [last] = await entries.find({ account: customer.id }).sort({ seq: -1 }).limit(1).toArray();
    const want = expected.get(customer.id) ?? 0;
    if (last?.balance !== want)
      problems.push(
        `account ${customer.id}: balance ${last ? exact(last.balance) : 'none'}, but its confirmed payments and shown orders make ${exact(want)}`,
      );
  }
  return { problems, figures };
}
