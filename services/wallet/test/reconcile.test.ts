import { toMicros } from '@raseed/kit';
import {
  checkChain,
  IN_FLIGHT_MS,
  reconcile,
  type ChainEntry,
  type ConfirmedPayment,
} from '../src/domain/reconcile';

const old = new Date(Date.now() - 10 * IN_FLIGHT_MS);
const open = (account: string): ChainEntry => ({
  account,
  seq: 0,
  key: `open:${account}`,
  amount: 0,
  balance: 0,
  debtChange: 0,
  debt: 0,
  createdAt: old,
});

/** Builds a correct chain from movements, so each test can break one thing. */
function chain(
  account: string,
  moves: { key: string; type: 'IN' | 'OUT'; dollars: number; debt?: number }[],
) {
  const entries = [open(account)];
  for (const move of moves) {
    const last = entries[entries.length - 1] as ChainEntry;
    const amount = toMicros(move.dollars);
    const debtChange = toMicros(move.debt ?? 0);
    entries.push({
      account,
      seq: last.seq + 1,
      key: move.key,
      type: move.type,
      amount,
      balance: last.balance + (move.type === 'IN' ? amount : -amount),
      debtChange,
      debt: last.debt + debtChange,
      createdAt: old,
    });
  }
  return entries;
}

const payment = (
  id: string,
  userId: string,
  dollars: number,
  type: 'IN' | 'OUT' = 'IN',
): ConfirmedPayment => ({
  id,
  userId,
  type,
  amount: toMicros(dollars),
  confirmedAt: old.toISOString(),
});

function run(chains: ChainEntry[][], payments: ConfirmedPayment[]) {
  return reconcile({
    accounts: async () => chains.map((c) => c[0]?.account as string),
    chain: async (account) => chains.find((c) => c[0]?.account === account) ?? [],
    confirmedPayments: async function* () {
      yield* payments;
    },
  });
}

describe('reconcile', () => {
  const good = chain('a', [
    { key: 'payment:p1', type: 'IN', dollars: 10, debt: 10 },
    { key: 'order:o1:debit', type: 'OUT', dollars: 2.5 },
    { key: 'order:o1:refund', type: 'IN', dollars: 2.5 },
  ]);

  it('finds nothing wrong with a consistent ledger', async () => {
    const report = await run([good], [payment('p1', 'a', 10)]);
    expect(report).toMatchObject({ accounts: 1, entries: 4, payments: 1, inFlight: 0, problems: [] });
  });

  it('reports a gap, a repeated seq, a wrong running balance or debt, and a negative balance', () => {
    const gap = good.filter((e) => e.seq !== 2);
    expect(checkChain('a', gap)).toEqual(
      expect.arrayContaining([expect.stringContaining('a gap or a repeat')]),
    );
    const wrongBalance = good.map((e) => (e.seq === 2 ? { ...e, balance: e.balance + 1 } : e));
    expect(checkChain('a', wrongBalance).join()).toMatch(
      /balance 7\.50 but its entries add up to 7\.50|balance/,
    );
    expect(checkChain('a', wrongBalance)).toHaveLength(1);
    const wrongDebt = good.map((e) => (e.seq === 3 ? { ...e, debt: 0 } : e));
    expect(checkChain('a', wrongDebt)).toEqual([
      expect.stringContaining('debt 0.000000 but its changes add up to 10.000000'),
    ]);
    const overdrawn = chain('b', [{ key: 'order:x:debit', type: 'OUT', dollars: 1 }]);
    expect(checkChain('b', overdrawn)).toEqual([expect.stringContaining('negative balance -1.000000')]);
  });

  it('reports a confirmed payment that moved no money, or moved the wrong amount', async () => {
    const missing = await run([good], [payment('p1', 'a', 10), payment('p2', 'a', 5)]);
    expect(missing.problems).toEqual(['payment p2 is confirmed but moved no money']);
    const wrong = await run([good], [payment('p1', 'a', 11)]);
    expect(wrong.problems).toEqual([
      expect.stringContaining('payment p1 moved IN 10.000000 on account a, not IN 11.000000'),
    ]);
  });

  it('reports money moved for a payment that is not confirmed, and a key recorded twice', async () => {
    const unknown = await run([good], []);
    expect(unknown.problems).toEqual([
      expect.stringContaining('money moved for payment p1, which is not confirmed'),
    ]);
    const other = chain('c', [{ key: 'order:o1:debit', type: 'IN', dollars: 1 }]);
    const twice = await run([good, other], [payment('p1', 'a', 10)]);
    expect(twice.problems).toEqual(['key order:o1:debit is recorded twice']);
  });

  it('counts a payment confirmed a moment ago as on its way, not as a mismatch', async () => {
    const fresh = { ...payment('p9', 'a', 3), confirmedAt: new Date().toISOString() };
    const report = await run([good], [payment('p1', 'a', 10), fresh]);
    expect(report).toMatchObject({ inFlight: 1, problems: [] });
  });
});
