import { toMicros } from '@raseed/kit';
import { eventually, publishEvents, readEvents } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import {
  bearer,
  confirm,
  newUser,
  newUsers,
  reconcileWallet,
  startTestWallet,
  type TestUser,
  type TestWallet,
} from './support';

let wallet: TestWallet;
let admin: TestUser;
beforeAll(async () => {
  wallet = await startTestWallet();
  admin = await newUser('admin');
});
afterAll(() => wallet.stop());

const waitForBalance = (user: TestUser, dollars: number) =>
  eventually(async () => ((await wallet.balance(user)) === dollars ? true : undefined), {
    what: `a balance of ${dollars}`,
  });

describe('wallet ledger', () => {
  it('opens an account when the user registers, with a zero balance and debt', async () => {
    const user = await newUser();
    await eventually(async () => ((await wallet.entries(user.id)).length === 1 ? true : undefined));
    expect(await wallet.entries(user.id)).toEqual([
      expect.objectContaining({ seq: 0, kind: 'open', balance: 0, debt: 0, key: `open:${user.id}` }),
    ]);
    expect(await wallet.balance(user)).toBe(0);
    const debt = await wallet.http().get('/api/debt').set(bearer(user)).expect(200);
    expect(debt.body).toEqual({ debt: 0 });
  });

  it('credits a confirmed payment once, even when the event is delivered again', async () => {
    const user = await newUser();
    const { payment, event } = await confirm(user, 25.5);
    await waitForBalance(user, 25.5);
    // The same event again, and the same payment under a new event id: neither moves money.
    await publishEvents('payment.confirmed', { key: user.id, data: event!.data });
    await confirm(user, 25.5);
    await waitForBalance(user, 51);
    const entries = await wallet.entries(user.id);
    expect(entries.filter((e) => e.key === `payment:${payment.id}`)).toHaveLength(1);

    const credited = await readEvents('wallet.credited', (e) => e.data.userId === user.id, { count: 2 });
    expect(credited.map((e) => e.data.balance)).toEqual([toMicros(25.5), toMicros(51)]);

    const profile = await wallet.http().get(`/api/profile/${user.id}`).set(bearer(user)).expect(200);
    expect(profile.body).toMatchObject({ success: true, total: 2, totalPages: 1 });
    expect(profile.body.transactions[1]).toEqual({
      id: expect.any(String),
      amount: 25.5,
      type: 'IN',
      status: 'confirmed',
      created_at: expect.any(String),
      product_name: 'Binance',
    });
  });

  it('debits and refunds orders once each, and refuses a debit beyond the balance with the balance', async () => {
    const user = await newUser();
    await confirm(user, 10);
    await waitForBalance(user, 10);
    const orderId = new Types.ObjectId().toString();
    const debit = { userId: user.id, amount: toMicros(3.25), productName: 'PUBG 60 UC' };
    const first = await wallet.internal(`/internal/orders/${orderId}/debit`, debit).expect(200);
    expect(first.body).toMatchObject({ applied: true, balance: toMicros(6.75) });
    const again = await wallet.internal(`/internal/orders/${orderId}/debit`, debit).expect(200);
    expect(again.body).toMatchObject({ applied: false, balance: toMicros(6.75) });

    const short = await wallet
      .internal(`/internal/orders/${new Types.ObjectId()}/debit`, { ...debit, amount: toMicros(7) })
      .expect(422);
    expect(short.body).toMatchObject({
      error: 'Insufficient balance. You have only 6.75$ in your balance',
      balance: toMicros(6.75),
    });

    const refund = await wallet.internal(`/internal/orders/${orderId}/refund`, {}).expect(200);
    expect(refund.body).toMatchObject({ refunded: true, applied: true, balance: toMicros(10) });
    const twice = await wallet.internal(`/internal/orders/${orderId}/refund`, {}).expect(200);
    expect(twice.body).toMatchObject({ refunded: true, applied: false });
    const never = await wallet.internal(`/internal/orders/${new Types.ObjectId()}/refund`, {}).expect(200);
    expect(never.body).toEqual({ refunded: false, applied: false });
    expect(await wallet.balance(user)).toBe(10);

    const profile = await wallet.http().get(`/api/profile/${user.id}`).set(bearer(user)).expect(200);
    expect(
      profile.body.transactions.map((t: { type: string; status: string }) => [t.type, t.status]),
    ).toEqual([
      ['IN', 'refunded'],
      ['OUT', 'confirmed'],
      ['IN', 'confirmed'],
    ]);
  });

  it("answers whether an order was paid for and refunded, from the ledger's keys", async () => {
    const user = await newUser();
    await confirm(user, 5);
    await waitForBalance(user, 5);
    const orderId = new Types.ObjectId().toString();
    const status = async () =>
      (
        await wallet
          .http()
          .get(`/internal/orders/${orderId}`)
          .set('x-service-token', wallet.config.SERVICE_TOKEN)
          .expect(200)
      ).body;
    expect(await status()).toEqual({ debited: false, refunded: false, amount: 0, account: null });

    const debit = { userId: user.id, amount: toMicros(1.5), productName: 'Steam $1.50' };
    await wallet.internal(`/internal/orders/${orderId}/debit`, debit).expect(200);
    expect(await status()).toEqual({
      debited: true,
      refunded: false,
      amount: toMicros(1.5),
      account: user.id,
    });

    await wallet.internal(`/internal/orders/${orderId}/refund`, {}).expect(200);
    expect(await status()).toEqual({
      debited: true,
      refunded: true,
      amount: toMicros(1.5),
      account: user.id,
    });

    await wallet.http().get(`/internal/orders/${orderId}`).expect(403);
    const bad = await wallet
      .http()
      .get('/internal/orders/not%20an%20id')
      .set('x-service-token', wallet.config.SERVICE_TOKEN)
      .expect(400);
    expect(bad.body).toEqual({ error: 'Invalid id' });
  });

  it('lets exactly 100 of 200 concurrent $1 debits through a $100 balance', async () => {
    const user = await newUser();
    const { payment } = await confirm(user, 100);
    await waitForBalance(user, 100);
    const results = await Promise.all(
      Array.from({ length: 200 }, () =>
        wallet.internal(`/internal/orders/${new Types.ObjectId()}/debit`, {
          userId: user.id,
          amount: toMicros(1),
          productName: 'Card',
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 422)).toHaveLength(100);
    expect(await wallet.balance(user)).toBe(0);
    const report = await reconcileWallet(wallet, [payment]);
    expect(report.problems.filter((p) => p.includes(user.id))).toEqual([]);
    const chain = await wallet.entries(user.id);
    expect(chain.map((e) => e.seq)).toEqual(Array.from({ length: 102 }, (_, i) => i));
  });

  it('sets and raises the debt, and publishes each change', async () => {
    const user = await newUser();
    await confirm(user, 40, { asDebt: true });
    await waitForBalance(user, 40);
    const debt = await wallet.http().get(`/api/debt?user_id=${user.id}`).set(bearer(admin)).expect(200);
    expect(debt.body).toEqual({ debt: 40 });

    const set = await wallet
      .http()
      .post('/api/editdebt')
      .set(bearer(admin))
      .send({ user_id: user.id, newdebt: 12.5 })
      .expect(200);
    expect(set.body).toEqual({ debtStatus: true, message: 'debt has changed successfully.', debt: 12.5 });
    expect(await wallet.balance(user)).toBe(40);
    const changes = await readEvents('wallet.debt-changed', (e) => e.data.userId === user.id, { count: 2 });
    expect(changes.map((e) => e.data.debt)).toEqual([toMicros(40), toMicros(12.5)]);

    for (const newdebt of [-1, 'abc', '1e309', 1.1234567, null]) {
      const bad = await wallet
        .http()
        .post('/api/editdebt')
        .set(bearer(admin))
        .send({ user_id: user.id, newdebt })
        .expect(400);
      expect(bad.body).toEqual({ debtStatus: false, error: expect.any(String) });
    }
    const cleared = await wallet
      .http()
      .post('/api/editdebt')
      .set(bearer(admin))
      .send({ user_id: user.id, newdebt: 0 })
      .expect(200);
    expect(cleared.body.debt).toBe(0);
    // Debt changes are not money movements: the transactions list only has the credit.
    const profile = await wallet.http().get(`/api/profile/${user.id}`).set(bearer(admin)).expect(200);
    expect(profile.body.total).toBe(1);
  });

  it('retries an edit with the same Idempotency-Key once', async () => {
    const user = await newUser();
    const key = `edit-${new Types.ObjectId()}`;
    for (const newdebt of [5, 5]) {
      await wallet
        .http()
        .post('/api/editdebt')
        .set(bearer(admin))
        .set('Idempotency-Key', key)
        .send({ user_id: user.id, newdebt })
        .expect(200);
    }
    expect((await wallet.entries(user.id)).filter((e) => e.kind === 'debt')).toHaveLength(1);
  });
});

describe('who may read and change a wallet', () => {
  it('answers 401 to visitors, 403 to other users, and lets admins read anyone', async () => {
    const [owner, other] = (await newUsers(2)) as [TestUser, TestUser];
    for (const path of [
      `/api/balance?user_id=${owner.id}`,
      `/api/debt?user_id=${owner.id}`,
      `/api/profile/${owner.id}`,
    ]) {
      await wallet.http().get(path).expect(401);
      const denied = await wallet.http().get(path).set(bearer(other)).expect(403);
      expect(denied.body.error).toEqual(expect.any(String));
      await wallet.http().get(path).set(bearer(owner)).expect(200);
      await wallet.http().get(path).set(bearer(admin)).expect(200);
    }
    const profile = await wallet.http().get(`/api/profile/${owner.id}`).set(bearer(other)).expect(403);
    expect(profile.body.error).toBe('You do not have permission to access this profile.');
    await wallet.http().post('/api/editdebt').send({ user_id: owner.id, newdebt: 1 }).expect(401);
    await wallet
      .http()
      .post('/api/editdebt')
      .set(bearer(owner))
      .send({ user_id: owner.id, newdebt: 1 })
      .expect(403);
    expect((await wallet.entries(owner.id)).filter((e) => e.kind === 'debt')).toEqual([]);
  });

  it('keeps the internal API to services holding the token', async () => {
    const user = await newUser();
    const body = { userId: user.id, amount: 1, productName: 'x' };
    await wallet.http().post(`/internal/orders/${new Types.ObjectId()}/debit`).send(body).expect(403);
    await wallet
      .http()
      .post(`/internal/orders/${new Types.ObjectId()}/debit`)
      .set('x-service-token', 'wrong')
      .send(body)
      .expect(403);
    await wallet
      .http()
      .post(`/internal/orders/${new Types.ObjectId()}/debit`)
      .set(bearer(admin))
      .send(body)
      .expect(403);
  });
});
