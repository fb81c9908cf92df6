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
    expect(checkChain('a', gap)).toEqual([
      'account a seq 3: expected seq 2 (a gap in the chain)',
      'account a seq 3: balance 10.000000 but its entries add up to 12.500000',
    ]);

    // Two writers chained onto seq 1 at once, as they would without the unique (account, seq):
    // each entry is right on its own, but one of them was built on a balance it did not see.
    const [open0, credit, debit, refund] = good as [ChainEntry, ChainEntry, ChainEntry, ChainEntry];
    const alsoOnSeq1: ChainEntry = {
      ...debit,
      key: 'order:o2:debit',
      amount: toMicros(1),
      balance: credit.balance - toMicros(1),
    };
    expect(checkChain('a', [open0, credit, debit, alsoOnSeq1, refund])).toEqual([
      'account a seq 2: a repeated seq (two entries chained onto one)',
      'account a seq 2: balance 9.000000 but its entries add up to 6.500000',
      'account a seq 3: balance 10.000000 but its entries add up to 9.000000',
    ]);

    const wrongBalance = good.map((e) => (e.seq === 2 ? { ...e, balance: e.balance + 1 } : e));
    expect(checkChain('a', wrongBalance)).toEqual([
      'account a seq 2: balance 7.500001 but its entries add up to 7.500000',
    ]);
    const wrongDebt = good.map((e) => (e.seq === 3 ? { ...e, debt: 0 } : e));
    expect(checkChain('a', wrongDebt)).toEqual([
      'account a seq 3: debt 0.000000 but its changes add up to 10.000000',
    ]);
    const overdrawn = chain('b', [{ key: 'order:x:debit', type: 'OUT', dollars: 1 }]);
    expect(checkChain('b', overdrawn)).toEqual(['account b seq 1: negative balance -1.000000']);
  });

  it("takes an order's void as a link of the chain that moves nothing", async () => {
    const [open0, credit, debit, refund] = good as [ChainEntry, ChainEntry, ChainEntry, ChainEntry];
    // The repair settled order o2 unpaid: its debit key holds an entry of amount 0, no type.
    const voided: ChainEntry = {
      account: 'a',
      seq: 2,
      key: 'order:o2:debit',
      amount: 0,
      balance: credit.balance,
      debtChange: 0,
      debt: credit.debt,
      createdAt: old,
    };
    const shifted = [debit, refund].map((e) => ({ ...e, seq: e.seq + 1 }));
    const withVoid = [open0, credit, voided, ...shifted];
    expect(checkChain('a', withVoid)).toEqual([]);
    const report = await run([withVoid], [payment('p1', 'a', 10)]);
    expect(report).toMatchObject({ entries: 5, problems: [] });
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
