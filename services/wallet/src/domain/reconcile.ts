import { toDollars } from '@raseed/kit';
import { checkOrders, fileOrderEntry, type OrderMoney, type ReconciledOrder } from './reconcile-orders';

/** Exact to the micro-dollar, so a difference of one is visible. */
const exact = (micros: number) => toDollars(micros).toFixed(6);

/** What reconcile needs to know of an entry (data/ledger.ts stores more). */
export interface ChainEntry {
  account: string;
  seq: number;
  key: string;
  kind?: string;
  type?: 'IN' | 'OUT';
  amount: number;
  balance: number;
  debtChange: number;
  debt: number;
  createdAt: Date;
}

/** A payment that moved money, as the payments service recorded it. */
export interface ConfirmedPayment {
  id: string;
  userId: string;
  type: 'IN' | 'OUT';
  amount: number;
  confirmedAt: string;
}

/**
 * Checks one account's chain, in seq order: no gap or repeat, each running balance and
 * debt equal to the sum of the entries up to it, and never below zero. An entry without
 * a type (the open entry, a debt change, an order's void) moves no money.
 */
export function checkChain(account: string, chain: ChainEntry[]): string[] {
  const problems: string[] = [];
  let balance = 0;
  let debt = 0;
  chain.forEach((entry, index) => {
    const at = `account ${account} seq ${entry.seq}`;
    const expected = index === 0 ? 0 : (chain[index - 1] as ChainEntry).seq + 1;
    if (entry.seq === expected - 1) problems.push(`${at}: a repeated seq (two entries chained onto one)`);
    else if (entry.seq !== expected) problems.push(`${at}: expected seq ${expected} (a gap in the chain)`);
    if (!Number.isSafeInteger(entry.amount) || entry.amount < 0)
      problems.push(`${at}: amount is not whole micro-dollars`);
    balance += entry.type === 'OUT' ? -entry.amount : entry.type === 'IN' ? entry.amount : 0;
    debt += entry.debtChange;
    if (entry.balance !== balance) {
      problems.push(`${at}: balance ${exact(entry.balance)} but its entries add up to ${exact(balance)}`);
    }
    if (entry.debt !== debt) {
      problems.push(`${at}: debt ${exact(entry.debt)} but its changes add up to ${exact(debt)}`);
    }
    if (entry.balance < 0) problems.push(`${at}: negative balance ${exact(entry.balance)}`);
    if (entry.debt < 0) problems.push(`${at}: negative debt ${exact(entry.debt)}`);
  });
  return problems;
}

export interface ReconcileReport {
  accounts: number;
  entries: number;
  payments: number;
  /** Orders checked against the ledger (0 when the orders service was not asked). */
  orders: number;
  /** Open disputes over supplier orders (not mismatches: each waits for an admin's resolution). */
  disputes: string[];
  /** Confirmed payments not credited yet, but young enough to be on their way. */
  inFlight: number;
  /** The codes sold from stock, and how many of the problems are theirs (null when orders was not asked). */
  codes: { sold: number; inFlight: number; problems: number } | null;
  problems: string[];
}

/** The orders service's check of its codes sold from stock (GET /internal/orders/codes/reconcile). */
export interface CodesCheck {
  sold: number;
  /** Codes claimed by orders still on their way to being confirmed. */
  inFlight: number;
  problems: string[];
}

/** Payments confirmed this recently may still be on their way to the ledger. */
export const IN_FLIGHT_MS = 60_000;

/**
 * Checks every account's chain, that no idempotency key appears twice, and that every
 * confirmed payment moved its money exactly once (and no money moved for a payment that
 * is not confirmed).
 */
export async function reconcile(source: {
  accounts(): Promise<string[]>;
  chain(account: string): Promise<ChainEntry[]>;
  confirmedPayments(): AsyncIterable<ConfirmedPayment>;
  /** Every order in id order, when the orders service is checked too. */
  orders?(): AsyncIterable<ReconciledOrder>;
  /** The orders service's check that every sold code is on exactly one confirmed order. */
  codes?(): Promise<CodesCheck>;
  progress?(done: number, total: number): void;
  now?: Date;
}): Promise<ReconcileReport> {
  const problems: string[] = [];
  const seenKeys = new Set<string>();
  const paymentEntries = new Map<string, ChainEntry>();
  const orderMoney = new Map<string, OrderMoney>();
  const accounts = await source.accounts();
  let entries = 0;
  for (const [index, account] of accounts.entries()) {
    const chain = await source.chain(account);
    entries += chain.length;
    problems.push(...checkChain(account, chain));
    for (const entry of chain) {
      if (seenKeys.has(entry.key)) problems.push(`key ${entry.key} is recorded twice`);
      seenKeys.add(entry.key);
      if (entry.key.startsWith('payment:')) paymentEntries.set(entry.key.slice('payment:'.length), entry);
      else fileOrderEntry(orderMoney, entry);
    }
    source.progress?.(index + 1, accounts.length);
  }

  let payments = 0;
  let inFlight = 0;
  const now = (source.now ?? new Date()).getTime();
  for await (const payment of source.confirmedPayments()) {
    payments++;
    const entry = paymentEntries.get(payment.id);
    paymentEntries.delete(payment.id);
    if (!entry) {
      if (now - new Date(payment.confirmedAt).getTime() < IN_FLIGHT_MS) inFlight++;
      else problems.push(`payment ${payment.id} is confirmed but moved no money`);
    } else if (
      entry.account !== payment.userId ||
      entry.amount !== payment.amount ||
      entry.type !== payment.type
    ) {
      problems.push(
        `payment ${payment.id} moved ${entry.type} ${exact(entry.amount)} on account ${entry.account}, not ${payment.type} ${exact(payment.amount)} on ${payment.userId}`,
      );
    }
  }
  for (const [paymentId, entry] of paymentEntries) {
    // An admin's withdrawal is debited first and recorded as a payment right after.
    if (now - new Date(entry.createdAt).getTime() < IN_FLIGHT_MS) {
      inFlight++;
      continue;
    }
    problems.push(
      `account ${entry.account} seq ${entry.seq}: money moved for payment ${paymentId}, which is not confirmed`,
    );
  }
  let orders = 0;
  const disputes: string[] = [];
  if (source.orders) {
    const checked = await checkOrders(source.orders(), orderMoney, { now, graceMs: IN_FLIGHT_MS });
    orders = checked.orders;
    inFlight += checked.inFlight;
    problems.push(...checked.problems);
    disputes.push(...checked.disputes);
  }
  let codes: ReconcileReport['codes'] = null;
  if (source.codes) {
    const checked = await source.codes();
    codes = { sold: checked.sold, inFlight: checked.inFlight, problems: checked.problems.length };
    problems.push(...checked.problems);
  }
  return { accounts: accounts.length, entries, payments, orders, inFlight, codes, problems, disputes };
}
