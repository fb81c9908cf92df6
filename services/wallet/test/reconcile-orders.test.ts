import {
  checkOrders,
  fileOrderEntry,
  type OrderEntry,
  type OrderMoney,
  type ReconciledOrder,
} from '../src/domain/reconcile-orders';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const LONG_AGO = new Date(NOW - 3600_000).toISOString();
const JUST_NOW = new Date(NOW - 1_000).toISOString();
let next = 0;
const id = () => (0x6b0000000000000000000000n + BigInt(next++)).toString(16);

function order(extra: Partial<ReconciledOrder> = {}): ReconciledOrder {
  return {
    id: id(),
    userId: 'u1',
    total: 2_000_000,
    paid: true,
    fate: 'paid',
    status: 'waiting',
    decision: null,
    decidedAt: null,
    dispute: null,
    createdAt: LONG_AGO,
    ...extra,
  };
}

function entry(
  orderId: string,
  movement: 'debit' | 'refund' | 'redebit',
  amount: number,
  extra: Partial<OrderEntry> = {},
) {
  return {
    account: 'u1',
    seq: next++,
    key: movement === 'redebit' ? `order:${orderId}-redebit:debit` : `order:${orderId}:${movement}`,
    amount,
    createdAt: new Date(LONG_AGO),
    ...extra,
  };
}

async function* list(orders: ReconciledOrder[]) {
  yield* orders;
}

/** Reconciles the orders against the entries; answers the report. */
async function reconcile(orders: ReconciledOrder[], entries: OrderEntry[]) {
  const money = new Map<string, OrderMoney>();
  for (const e of entries) fileOrderEntry(money, e);
  return checkOrders(list(orders), money, { now: NOW, graceMs: 60_000 });
}

describe("reconcile's order checks", () => {
  it('passes a store whose every order is explained', async () => {
    const waiting = order();
    const confirmed = order({ status: 'confirmed', decision: 'confirmed', decidedAt: LONG_AGO });
    const rejected = order({ status: 'rejected', decision: 'rejected', decidedAt: LONG_AGO });
    const voided = order({ paid: false, fate: 'void' });
    const report = await reconcile(
      [waiting, confirmed, rejected, voided],
      [
        entry(waiting.id, 'debit', 2_000_000),
        entry(confirmed.id, 'debit', 2_000_000),
        entry(rejected.id, 'debit', 2_000_000),
        entry(rejected.id, 'refund', 2_000_000),
        entry(voided.id, 'debit', 0, { kind: 'void' }),
      ],
    );
    expect(report).toEqual({ orders: 4, inFlight: 0, problems: [], disputes: [] });
  });

  it('reports each kind of mismatch with the ids and the amount at stake', async () => {
    const noDebit = order();
    const wrongAmount = order();
    const hidden = order({ paid: false, fate: null });
    const voidDebited = order({ paid: false, fate: 'void' });
    const noRefund = order({ status: 'rejected', decision: 'rejected', decidedAt: LONG_AGO });
    const refundedConfirmed = order({ status: 'confirmed', decision: 'confirmed', decidedAt: LONG_AGO });
    const statusBehind = order({ status: 'waiting', decision: 'confirmed', decidedAt: LONG_AGO });
    const halfRefund = order({ status: 'rejected', decision: 'rejected', decidedAt: LONG_AGO });
    const unknown = id();
    const entries = [
      entry(wrongAmount.id, 'debit', 1_999_999),
      entry(hidden.id, 'debit', 2_000_000),
      entry(voidDebited.id, 'debit', 2_000_000),
      entry(noRefund.id, 'debit', 2_000_000),
      entry(refundedConfirmed.id, 'debit', 2_000_000),
      entry(refundedConfirmed.id, 'refund', 2_000_000),
      entry(statusBehind.id, 'debit', 2_000_000),
      entry(halfRefund.id, 'debit', 2_000_000),
      entry(halfRefund.id, 'refund', 1_000_000),
      entry(unknown, 'debit', 3_000_000),
    ];
    const report = await reconcile(
      [noDebit, wrongAmount, hidden, voidDebited, noRefund, refundedConfirmed, statusBehind, halfRefund],
      entries,
    );
    const seqOf = (orderId: string, movement: string) =>
      entries.find((e) => e.key === `order:${orderId}:${movement}`)!.seq;
    expect(report.problems).toEqual([
      `order ${noDebit.id} (account u1) is shown as paid but holds no debit (2.000000 at stake)`,
      `order ${wrongAmount.id} (account u1) was debited 1.999999, not its total 2.000000`,
      `order ${hidden.id} (account u1) was debited 2.000000 (seq ${seqOf(hidden.id, 'debit')}) but is not shown (fate none)`,
      `order ${voidDebited.id} (account u1) was debited 2.000000 (seq ${seqOf(voidDebited.id, 'debit')}) but is not shown (fate void)`,
      `order ${voidDebited.id} (account u1) is void but its debit key holds a debit of 2.000000`,
      `order ${noRefund.id} (account u1) was rejected after payment but has no refund (2.000000 at stake)`,
      `order ${refundedConfirmed.id} (account u1) is confirmed but was refunded 2.000000 (seq ${seqOf(refundedConfirmed.id, 'refund')})`,
      `order ${statusBehind.id} (account u1) was decided confirmed but shows waiting`,
      `order ${halfRefund.id} (account u1) was refunded 1.000000 for a debit of 2.000000`,
      `account u1 seq ${seqOf(unknown, 'debit')}: 3.000000 moved for order ${unknown}, which orders does not know`,
    ]);
    expect(report.orders).toBe(8);
  });

  it('counts what may still be on its way instead of reporting it', async () => {
    const placing = order({ createdAt: JUST_NOW, paid: false, fate: null });
    const deciding = order({ status: 'waiting', decision: 'rejected', decidedAt: JUST_NOW });
    const newer = id();
    const report = await reconcile(
      [placing, deciding],
      [
        entry(deciding.id, 'debit', 2_000_000),
        entry(newer, 'debit', 1_000_000, { createdAt: new Date(JUST_NOW) }),
      ],
    );
    expect(report).toEqual({ orders: 2, inFlight: 2, problems: [], disputes: [] });
  });

  it('follows the resolution of a dispute, and lists the open ones', async () => {
    const decided = { decidedAt: LONG_AGO };
    const delivered = order({
      ...decided,
      status: 'confirmed',
      decision: 'rejected',
      dispute: { kind: 'completed-after-refund', resolution: 'deliver' },
    });
    const refunded = order({
      ...decided,
      status: 'rejected',
      decision: 'confirmed',
      dispute: { kind: 'rejected-after-ok', resolution: 'refund' },
    });
    const writtenOff = order({
      ...decided,
      status: 'rejected',
      decision: 'rejected',
      dispute: { kind: 'completed-after-refund', resolution: 'write-off' },
    });
    const open = order({
      ...decided,
      status: 'confirmed',
      decision: 'confirmed',
      dispute: { kind: 'rejected-after-ok', resolution: null },
    });
    const clean = await reconcile(
      [delivered, refunded, writtenOff, open],
      [
        entry(delivered.id, 'debit', 2_000_000),
        entry(delivered.id, 'refund', 2_000_000),
        entry(delivered.id, 'redebit', 2_000_000),
        entry(refunded.id, 'debit', 2_000_000),
        entry(refunded.id, 'refund', 2_000_000),
        entry(writtenOff.id, 'debit', 2_000_000),
        entry(writtenOff.id, 'refund', 2_000_000),
        entry(writtenOff.id, 'redebit', 0, { kind: 'void' }),
        entry(open.id, 'debit', 2_000_000),
      ],
    );
    expect(clean).toEqual({
      orders: 4,
      inFlight: 0,
      problems: [],
      disputes: [`order ${open.id} (account u1): rejected-after-ok, 2.000000 at stake`],
    });

    // Delivered without the second debit; debited a second time without a delivery.
    const undelivered = { ...delivered, id: id() };
    const charged = { ...writtenOff, id: id() };
    const entries = [
      entry(undelivered.id, 'debit', 2_000_000),
      entry(undelivered.id, 'refund', 2_000_000),
      entry(charged.id, 'debit', 2_000_000),
      entry(charged.id, 'refund', 2_000_000),
      entry(charged.id, 'redebit', 2_000_000),
    ];
    const report = await reconcile([undelivered, charged], entries);
    expect(report.problems).toEqual([
      `order ${undelivered.id} (account u1) was delivered after a dispute but debited again nothing, not 2.000000`,
      `order ${charged.id} (account u1) was debited a second time 2.000000 (seq ${entries[4]!.seq}) without a delivered dispute`,
    ]);
  });
});
