import { eventually, publishEvents } from '@raseed/kit/testing';
import { bearer, startTestAuth, type TestAuth } from './support';

/** The Users List's debt and sales come from the wallet's and payments' events, not from calls. */
let auth: TestAuth;
let admin: string;
beforeAll(async () => {
  auth = await startTestAuth();
  admin = await auth.adminToken();
});
afterAll(() => auth.stop());

const confirmed = (userId: string, paymentId: string, amount: number, type: 'IN' | 'OUT', at: Date) => ({
  key: userId,
  data: {
    paymentId,
    userId,
    type,
    amount,
    productName: type === 'IN' ? 'Whish-Money' : 'Payment',
    asDebt: false,
    confirmedAt: at.toISOString(),
  },
});

async function listed(userId: string) {
  const res = await auth.http().get('/api/users?limit=100').set(bearer(admin)).expect(200);
  return (res.body.users as { id: string; debt: number; sales: number; lastsales: number }[]).find(
    (u) => u.id === userId,
  );
}

describe('Users List figures', () => {
  it('counts each confirmed top-up once, withdrawals never, and sales since the discount was set', async () => {
    const customer = await auth.newCustomer();
    const hourAgo = new Date(Date.now() - 3600_000);
    await publishEvents(
      'payment.confirmed',
      confirmed(customer.id, 'pay-1', 10_000_000, 'IN', hourAgo),
      // A redelivery of the same payment under a new event id, and a withdrawal.
      confirmed(customer.id, 'pay-1', 10_000_000, 'IN', hourAgo),
      confirmed(customer.id, 'pay-2', 4_000_000, 'OUT', hourAgo),
    );
    await eventually(async () => ((await listed(customer.id))?.sales === 10 ? true : undefined), {
      what: 'the first sale counted',
    });

    await auth
      .http()
      .post('/api/discount')
      .set(bearer(admin))
      .send({ user_id: customer.id, percentage: 5, userPaymentSums: 999 })
      .expect(200);
    expect(await listed(customer.id)).toMatchObject({ sales: 10, lastsales: 0, debt: 0 });

    await publishEvents('payment.confirmed', confirmed(customer.id, 'pay-3', 2_500_000, 'IN', new Date()));
    const after = await eventually(async () => {
      const user = await listed(customer.id);
      return user?.sales === 12.5 ? user : undefined;
    });
    expect(after).toMatchObject({ sales: 12.5, lastsales: 2.5 });

    const [found] = (
      await auth.http().get('/api/users/search').query({ query: customer.email }).set(bearer(admin))
    ).body as { sales: number; lastsales: number }[];
    expect(found).toMatchObject({ sales: 12.5, lastsales: 2.5 });
  });

  it('keeps the debt of the newest ledger entry, whatever order the events arrive in', async () => {
    const customer = await auth.newCustomer();
    const debt = (seq: number, micros: number) => ({
      key: customer.id,
      data: { userId: customer.id, key: `debt-${seq}`, seq, debt: micros },
    });
    const events = await publishEvents(
      'wallet.debt-changed',
      debt(3, 7_250_000),
      debt(2, 9_000_000),
      debt(3, 7_250_000),
    );
    const markers = events.map((e) => `${auth.config.KAFKA_GROUP}:${e.id}`);
    await eventually(
      async () =>
        (await auth.db.collection('processed_events').countDocuments({ _id: { $in: markers } as never })) ===
        3
          ? true
          : undefined,
      { what: 'all three debt events applied' },
    );
    expect((await listed(customer.id))?.debt).toBe(7.25);
    await publishEvents('wallet.debt-changed', debt(4, 0));
    await eventually(async () => ((await listed(customer.id))?.debt === 0 ? true : undefined), {
      what: 'the debt of entry 4',
    });
  });

  it("sums a customer's sales exactly past what a 32-bit integer holds, and each page's users apart", async () => {
    const [big, other] = [await auth.newCustomer(), await auth.newCustomer()];
    const at = new Date(Date.now() - 60_000);
    // 3,002.5 dollars is 3,002,500,000 micro-dollars, over 2^31: the store's sum must widen, not wrap.
    await publishEvents(
      'payment.confirmed',
      confirmed(big.id, 'big-1', 1_500_000_000, 'IN', at),
      confirmed(big.id, 'big-2', 1_500_000_000, 'IN', at),
      confirmed(big.id, 'big-3', 2_500_000, 'IN', at),
      confirmed(other.id, 'other-1', 1_000_000, 'IN', at),
    );
    const both = await eventually(async () => {
      const [a, b] = [await listed(big.id), await listed(other.id)];
      return a?.sales === 3002.5 && b?.sales === 1 ? { a, b } : undefined;
    });
    expect(both.a).toMatchObject({ sales: 3002.5, lastsales: 3002.5 });
    expect(both.b).toMatchObject({ sales: 1, lastsales: 1 });
  });
});
