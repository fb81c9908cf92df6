import { eventually, spawnService } from '@raseed/kit/testing';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { startTestOrders, type TestOrders } from './support';

const PORT = 4704;
const MAIN = 'services/orders/src/main.ts';
let orders: TestOrders;
let child: ChildProcess | undefined;

beforeAll(async () => {
  orders = await startTestOrders(
    { PORT: String(PORT), ORDER_SYNC_SECONDS: '1', ORDER_REPAIR_AFTER_SECONDS: '1' },
    { ownProcess: true },
  );
  child = await spawnService(MAIN, orders.env, PORT);
}, 120_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await orders.stop();
});

interface Answer {
  status: number;
  body: { orderId?: string; error?: string };
}

/**
 * Orders as a browser does: one Idempotency-Key per order, and a request that got no
 * answer (the process was down or died mid-call) or a 5xx is sent again with that key.
 */
async function place(body: object, key: string, token: string): Promise<Answer> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/api/orders`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          'idempotency-key': key,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      if (res.status < 500) return { status: res.status, body: (await res.json()) as Answer['body'] };
    } catch {
      // no answer: the process is down
    }
    if (Date.now() > deadline) return { status: 0, body: {} };
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('orders killed with SIGKILL in the middle of 100 supplier orders', () => {
  it('ends every order confirmed, or rejected and refunded, with no debit twice and none stuck', async () => {
    const user = await orders.customer(1000);
    const cheap = orders.sim.products.filter((p) => p.available && p.priceMicros <= 5_000_000);
    const products = [cheap[0]!, cheap[1]!, cheap[2]!];
    orders.sim.setScenario(products[0]!.id, 'complete');
    orders.sim.setScenario(products[1]!.id, 'after-polls:1');
    orders.sim.setScenario(products[2]!.id, 'reject:Out of stock');

    const answers: Answer[] = [];
    let done = 0;
    let killing = false;
    /** How the killed process really ended, as the operating system reported it. */
    let killedBy: NodeJS.Signals | null = null;
    let restartFailed: unknown = null;
    const queue = Array.from({ length: 100 }, (_, i) => i);
    const workers = Array.from({ length: 8 }, async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        if (done >= 30 && !killing) {
          const victim = child!;
          killing = true;
          victim.once('exit', (_code, signal) => {
            killedBy = signal;
            setTimeout(() => {
              spawnService(MAIN, orders.env, PORT).then(
                (c) => (child = c),
                (err: unknown) => (restartFailed = err),
              );
            }, 300);
          });
          victim.kill('SIGKILL');
        }
        const p = products[i % 3]!;
        const body = {
          product_id: `p-${p.id}`,
          quantity: p.qtyValues?.min ?? 1,
          params: p.params.map((label) => `${label}:player-${i}`).join(','),
        };
        answers.push(await place(body, `crash-${i}-${randomUUID()}`, user.token));
        done++;
      }
    });
    await Promise.all(workers);
    expect(restartFailed).toBeNull();
    expect(killedBy).toBe('SIGKILL');
    expect(answers.filter((a) => a.status === 0)).toEqual([]);

    // Every order the wallet paid for is shown (the repair follows the fate of one the crash cut
    // off after its debit) and settles; none stays waiting. A void also holds an order's debit
    // key (the repair gave up on a placement cut off before the wallet was asked) but is no debit.
    const isDebit = (e: Record<string, unknown>) =>
      /^order:.*:debit$/.test(e.key as string) && e.kind !== 'void';
    const debits = async () =>
      (await orders.wallet.db.collection('entries').find({ account: user.id }).toArray()).filter(isDebit)
        .length;
    let seen = '';
    const paid = await eventually(
      async () => {
        const list = await orders.storedOrders({ userId: user.id });
        const shown = list.filter((o) => o.paid);
        const waiting = shown.filter((o) => o.status === 'waiting');
        const debited = await debits();
        seen = `${list.length} recorded, ${shown.length} shown, ${debited} debited, waiting: ${JSON.stringify(
          waiting.map((o) => ({
            id: o._id.toString(),
            product: o.productId,
            externalId: o.externalId ?? null,
          })),
        )}`;
        return waiting.length === 0 && shown.length === debited ? shown : undefined;
      },
      { timeoutMs: 150_000, what: 'every paid order shown and settled' },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; last seen: ${seen}`);
    });
    // An order the crash cut off before the wallet was asked is answered as not completed.
    const placed = answers.filter((a) => a.status === 201);
    const cutOff = answers.filter((a) => a.status !== 201);
    expect(cutOff.length).toBeLessThanOrEqual(8);
    expect(cutOff.map((a) => [a.status, a.body.error])).toEqual(
      cutOff.map(() => [409, 'The order could not be completed. Please try again.']),
    );
    const paidIds = new Set(paid.map((o) => o._id.toString()));
    expect(placed.filter((a) => !paidIds.has(a.body.orderId!))).toEqual([]);

    const entries = await orders.wallet.db.collection('entries').find({ account: user.id }).toArray();
    const count = (key: string) => entries.filter((e) => e.key === key).length;
    for (const order of paid) {
      const id = order._id.toString();
      expect([id, count(`order:${id}:debit`)]).toEqual([id, 1]);
      expect([id, count(`order:${id}:refund`)]).toEqual([id, order.status === 'rejected' ? 1 : 0]);
      expect(orders.sim.placed.filter((s) => s.uuid === id)).toHaveLength(1);
    }
    // No money moved for an order that is not shown.
    expect(entries.filter(isDebit)).toHaveLength(paid.length);
    // Each void is an order the crash cut off, answered as such when its key was sent again.
    const voids = entries.filter((e) => e.kind === 'void');
    expect(voids).toHaveLength(cutOff.length);

    const confirmed = paid.filter((o) => o.status === 'confirmed');
    expect(confirmed.length).toBeGreaterThan(0);
    expect(paid.filter((o) => o.status === 'rejected').every((o) => o.reason === 'Out of stock')).toBe(true);
    const spent = confirmed.reduce((sum, o) => sum + (o.total as number), 0);
    expect(await orders.wallet.balance(user)).toBeCloseTo(1000 - spent / 1_000_000, 6);
    expect((await orders.reconcile()).problems).toEqual([]);
  }, 300_000);
});
