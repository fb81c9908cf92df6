import { KEY_REUSED, signSession, toMicros } from '@raseed/kit';
import { eventually, publishEvents, readEvents, uniqueName } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import type supertest from 'supertest';
import { bearer, newUser, newUsers, type TestUser } from '../../wallet/test/support';
import { freshReceipt, startMoneyServices, type MoneyServices } from './support';

let money: MoneyServices;
let admin: TestUser;
beforeAll(async () => {
  money = await startMoneyServices();
  admin = await newUser('admin');
});
afterAll(() => money.stop());

async function customer(): Promise<TestUser> {
  const user = await newUser();
  await money.known(user);
  return user;
}

const newKey = () => `key-${new Types.ObjectId().toString()}`;
const paymentsOf = (user: TestUser) => money.db.collection('payments').countDocuments({ userId: user.id });
const receiptsOf = (user: TestUser) => money.objects.list(`receipts/${user.id}/`);
const idsOf = (answers: supertest.Response[]) =>
  new Set(answers.map((a) => (a.body as { payment?: { id: string } }).payment?.id));
const ALREADY_SUBMITTED = {
  paymentStatus: false,
  error: 'This receipt has already been submitted.',
};

const deletion = (userId: string) => ({ key: userId, data: { userId } });
const registration = (userId: string, username = uniqueName('user')) => ({
  key: userId,
  data: {
    userId,
    username,
    email: `${username}@example.com`,
    phone: '1',
    role: 'user' as const,
    createdAt: new Date().toISOString(),
  },
});
/** Waits until payments has read the user's user.deleted event. */
const deletionApplied = (userId: string) =>
  eventually(
    async () =>
      (await money.db.collection('users').findOne({ _id: userId as never, deletedAt: { $ne: null } }))
        ? true
        : undefined,
    { what: 'payments to learn of the deletion' },
  );

const balanceOf = (user: TestUser) => money.wallet.balance(user);
const waitForBalance = (user: TestUser, dollars: number) =>
  eventually(async () => ((await balanceOf(user)) === dollars ? true : undefined), {
    what: `a balance of ${dollars}`,
  });

describe('a customer top-up', () => {
  it('waits with its receipt; once an admin confirms it, the balance rises by the amount with one ledger entry', async () => {
    const user = await customer();
    const submitted = await money.topUp(user, { product_name: 'Whish-Money', amount: '20.5' }).expect(201);
    expect(submitted.body).toMatchObject({ paymentStatus: true, message: 'Payment submitted successfully!' });
    const payment = submitted.body.payment;
    expect(payment).toMatchObject({
      user_id: user.id,
      username: user.username,
      product_name: 'Whish-Money',
      amount: 20.5,
      amount_to_send: 20.3,
      type: 'IN',
      status: 'waiting',
      image_path: `/api/payments/${payment.id}/receipt`,
    });
    const waiting = await money.http().get('/api/waiting-payments').set(bearer(admin)).expect(200);
    expect(waiting.body.payments.map((p: { id: string }) => p.id)).toContain(payment.id);
    const submittedEvents = await readEvents('payment.submitted', (e) => e.data.paymentId === payment.id);
    expect(submittedEvents[0]?.data).toMatchObject({ userId: user.id, amount: toMicros(20.5) });

    const decided = await money.decide(admin, payment.id, 'confirmed').expect(200);
    expect(decided.body).toEqual({ success: true, color: 'success', message: 'Payment has been confirmed.' });
    await waitForBalance(user, 20.5);
    const entries = (await money.wallet.entries(user.id)).filter((e) => e.kind === 'movement');
    expect(entries).toEqual([
      expect.objectContaining({ key: `payment:${payment.id}`, amount: toMicros(20.5), type: 'IN' }),
    ]);

    const profile = await money.wallet.http().get(`/api/profile/${user.id}`).set(bearer(user)).expect(200);
    expect(profile.body.transactions).toEqual([
      expect.objectContaining({ amount: 20.5, type: 'IN', status: 'confirmed', product_name: 'Whish-Money' }),
    ]);
    const mine = await money.http().post('/api/payments/mypayments').set(bearer(user)).send({}).expect(200);
    expect(mine.body).toMatchObject({ success: true, total: 1, totalPages: 1 });
    expect(mine.body.payments[0]).toMatchObject({ id: payment.id, status: 'confirmed' });
    expect(await money.reconcile()).toBe(0);
  });

  it('shows the receipt to its owner and admins only', async () => {
    const [owner, other] = [await customer(), await customer()];
    const { body } = await money.topUp(owner).expect(201);
    const receipt = body.payment.image_path as string;
    const mine = await money.http().get(receipt).set(bearer(owner)).buffer(true).expect(200);
    expect(mine.headers['content-type']).toBe('image/png');
    expect(mine.body.subarray(1, 4).toString()).toBe('PNG');
    await money.http().get(receipt).set(bearer(admin)).expect(200);
    await money.http().get(receipt).set(bearer(other)).expect(403);
    await money.http().get(receipt).expect(401);
  });

  it('is always the customer’s own and always waiting, whatever the form says', async () => {
    const [user, other] = [await customer(), await customer()];
    await money.topUp(user, { user_id: other.id }).expect(403);
    const res = await money
      .topUp(user, { status: 'confirmed', type: 'OUT', username: 'someone' })
      .expect(201);
    expect(res.body.payment).toMatchObject({
      status: 'waiting',
      type: 'IN',
      username: user.username,
      user_id: user.id,
    });
    await money.topUp(user, { product_name: 'PayPal' }).expect(400);
  });

  it('refuses a receipt that is not an image, or too large, and stores nothing', async () => {
    const user = await customer();
    const notAnImage = await money
      .http()
      .post('/api/payments')
      .set(bearer(user))
      .field('product_name', 'Binance')
      .field('amount', '5')
      .attach('image', Buffer.from('this is a text file, not a picture'), {
        filename: 'receipt.png',
        contentType: 'image/png',
      })
      .expect(400);
    expect(notAnImage.body).toEqual({ paymentStatus: false, error: 'Only JPG/JPEG/PNG files are allowed' });

    const big = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'binary'), Buffer.alloc(4 * 1024 * 1024, 1)]);
    const tooLarge = await money
      .http()
      .post('/api/payments')
      .set(bearer(user))
      .field('product_name', 'Binance')
      .field('amount', '5')
      .attach('image', big, { filename: 'big.png', contentType: 'image/png' })
      .expect(400);
    expect(tooLarge.body.error).toBe('Image must be smaller than 3MB');

    const missing = await money.topUp(user, {}, '').expect(400);
    expect(missing.body.error).toBe('Please attach a screenshot of the transfer.');
    expect(await money.db.collection('payments').countDocuments({ userId: user.id })).toBe(0);
    const stored = await money.objects.list(`receipts/${user.id}/`);
    expect(stored).toEqual([]);
  });

  it.each([
    ['-5', 'Please enter a valid amount (greater than 0).'],
    ['0', 'Please enter a valid amount (greater than 0).'],
    ['NaN', 'Please enter a valid amount (greater than 0).'],
    ['1e309', 'Please enter a valid amount (greater than 0).'],
    ['10000.01', 'The amount can be at most 10000.00$.'],
    ['1.1234567', 'The amount can have at most 6 decimal places.'],
    ['', 'Set an amount, please.'],
  ])('refuses the amount %p with a clear text and stores nothing', async (amount, error) => {
    const user = await customer();
    const res = await money.topUp(user, { amount }).expect(400);
    expect(res.body).toEqual({ paymentStatus: false, error });
    expect(await money.db.collection('payments').countDocuments({ userId: user.id })).toBe(0);
  });
});

describe('a top-up sent twice', () => {
  it('makes one waiting payment and one receipt of 100 submits with one Idempotency-Key', async () => {
    const user = await customer();
    const [key, receipt] = [newKey(), freshReceipt()];
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => money.topUp(user, { amount: '12' }, receipt, key)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(201));
    const ids = idsOf(answers);
    expect(ids.size).toBe(1);
    expect(await paymentsOf(user)).toBe(1);
    expect(await receiptsOf(user)).toHaveLength(1);
    const [id] = [...ids] as [string];
    const submitted = await readEvents('payment.submitted', (e) => e.data.paymentId === id);
    expect(submitted).toHaveLength(1);
    // The receipt left is the payment's own.
    await money.http().get(`/api/payments/${id}/receipt`).set(bearer(user)).expect(200);
  });

  it('answers a retry with the first payment, and the key with another amount or method with 422', async () => {
    const user = await customer();
    const [key, receipt] = [newKey(), freshReceipt()];
    const first = await money.topUp(user, { amount: '20' }, receipt, key).expect(201);
    const again = await money.topUp(user, { amount: '20' }, receipt, key).expect(201);
    expect(again.body.payment).toEqual(first.body.payment);
    const changed: Record<string, string>[] = [
      { amount: '25' },
      { product_name: 'Whish-Money', amount: '20' },
    ];
    for (const fields of changed) {
      const reused = await money.topUp(user, fields, receipt, key).expect(422);
      expect(reused.body).toEqual({ paymentStatus: false, error: KEY_REUSED });
    }
    // The request is the method and the amount: another screenshot of it is a retry, the first kept.
    const otherFile = await money.topUp(user, { amount: '20' }, freshReceipt(), key).expect(201);
    expect(otherFile.body.payment).toEqual(first.body.payment);
    expect(await paymentsOf(user)).toBe(1);
    expect(await receiptsOf(user)).toHaveLength(1);
  });

  it('leaves no receipt behind for the requests that lose a race of one key with two amounts', async () => {
    const user = await customer();
    const [key, receipt] = [newKey(), freshReceipt()];
    const amounts = Array.from({ length: 40 }, (_, i) => (i % 2 ? '5' : '6'));
    const answers = await Promise.all(amounts.map((amount) => money.topUp(user, { amount }, receipt, key)));
    const won = answers.find((a) => a.status === 201)?.body.payment.amount as number;
    expect(answers.map((a, i) => [amounts[i], a.status]).filter(([, status]) => status !== 201)).toEqual(
      amounts.filter((a) => Number(a) !== won).map((a) => [a, 422]),
    );
    expect(idsOf(answers.filter((a) => a.status === 201)).size).toBe(1);
    expect(await paymentsOf(user)).toBe(1);
    expect(await receiptsOf(user)).toHaveLength(1);
  });

  it('refuses a receipt already submitted while its payment waits or stands confirmed', async () => {
    const user = await customer();
    const receipt = freshReceipt();
    const first = (await money.topUp(user, { amount: '9' }, receipt, newKey()).expect(201)).body.payment;
    const waiting = await money.topUp(user, { amount: '10' }, receipt, newKey()).expect(400);
    expect(waiting.body).toEqual(ALREADY_SUBMITTED);
    await money.topUp(user, { amount: '9' }, receipt).expect(400);
    await money.decide(admin, first.id, 'confirmed').expect(200);
    const confirmed = await money.topUp(user, { amount: '9' }, receipt).expect(400);
    expect(confirmed.body).toEqual(ALREADY_SUBMITTED);
    expect(await paymentsOf(user)).toBe(1);
    expect(await receiptsOf(user)).toHaveLength(1);
    // Another receipt is another transfer.
    await money.topUp(user, { amount: '9' }, freshReceipt()).expect(201);
    await waitForBalance(user, 9);
  });

  it('lets a receipt be submitted again once its payment was rejected, by one payment at a time', async () => {
    const user = await customer();
    const receipt = freshReceipt();
    const first = (await money.topUp(user, {}, receipt).expect(201)).body.payment;
    await money.decide(admin, first.id, 'rejected').expect(200);
    const second = (await money.topUp(user, {}, receipt).expect(201)).body.payment;
    await money.topUp(user, {}, receipt).expect(400);
    await money.decide(admin, second.id, 'rejected').expect(200);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => money.topUp(user, {}, receipt, newKey())),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400).map((a) => a.body)).toEqual(
      Array(19).fill(ALREADY_SUBMITTED),
    );
    expect(await paymentsOf(user)).toBe(3);
    expect(await money.db.collection('payments').countDocuments({ userId: user.id, status: 'waiting' })).toBe(
      1,
    );
  });

  it('takes one of 100 submits of one receipt with different keys', async () => {
    const user = await customer();
    const receipt = freshReceipt();
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => money.topUp(user, {}, receipt, newKey())),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400)).toHaveLength(99);
    expect(await paymentsOf(user)).toBe(1);
    expect(await receiptsOf(user)).toHaveLength(1);
  });

  it('lets two customers send the same image', async () => {
    const [one, two] = [await customer(), await customer()];
    const receipt = freshReceipt();
    await money.topUp(one, {}, receipt).expect(201);
    await money.topUp(two, {}, receipt).expect(201);
  });
});

describe('top-ups waiting for review', () => {
  it('lets a customer have at most 5 waiting when 20 are sent at once, stores nothing for the rest, and frees one on a decision', async () => {
    const user = await customer();
    const sent = await Promise.all(
      Array.from({ length: 20 }, () => money.topUp(user, { amount: '10' }, freshReceipt(), newKey())),
    );
    expect(sent.map((r) => r.status).sort()).toEqual([
      ...Array.from({ length: 5 }, () => 201),
      ...Array.from({ length: 15 }, () => 429),
    ]);
    for (const refused of sent.filter((r) => r.status === 429)) {
      expect(refused.body).toEqual({
        paymentStatus: false,
        error: 'You have too many top-ups waiting for review.',
      });
    }
    expect(await paymentsOf(user)).toBe(5);
    expect(await receiptsOf(user)).toHaveLength(5);

    const first = sent.find((r) => r.status === 201)!.body.payment.id as string;
    await money.decide(admin, first, 'rejected').expect(200);
    await money.topUp(user, { amount: '10' }, freshReceipt(), newKey()).expect(201);
    await money.topUp(user, { amount: '10' }, freshReceipt(), newKey()).expect(429);
    // A retry of a key whose top-up waits is answered with it, not refused.
    const key = newKey();
    const last = sent.find((r) => r.status === 201 && r.body.payment.id !== first)!.body.payment.id as string;
    await money.decide(admin, last, 'confirmed').expect(200);
    const made = await money.topUp(user, { amount: '10' }, freshReceipt(), key).expect(201);
    const again = await money.topUp(user, { amount: '10' }, freshReceipt(), key).expect(201);
    expect(again.body.payment.id).toBe(made.body.payment.id);
  });
});

describe('deciding a payment', () => {
  it('credits once when 20 admins confirm one payment at the same moment', async () => {
    const user = await customer();
    const { body } = await money.topUp(user, { amount: '7' }).expect(201);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => money.decide(admin, body.payment.id, 'confirmed')),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const losers = answers.filter((a) => a.status === 409);
    expect(losers).toHaveLength(19);
    expect(losers[0]?.body).toEqual({ success: false, error: 'This payment has already been confirmed.' });
    await waitForBalance(user, 7);
    // Let any late duplicate arrive before counting.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await money.wallet.entries(user.id)).filter((e) => e.kind === 'movement')).toHaveLength(1);
    expect(await money.reconcile()).toBe(0);
  });

  it('refuses to confirm a rejected payment or reject a confirmed one', async () => {
    const user = await customer();
    const rejected = (await money.topUp(user, { amount: '3' }).expect(201)).body.payment.id;
    const rejection = await money.decide(admin, rejected, 'rejected').expect(200);
    expect(rejection.body).toEqual({
      success: true,
      color: 'warning',
      message: 'Payment has been rejected.',
    });
    const late = await money.decide(admin, rejected, 'confirmed').expect(409);
    expect(late.body.error).toBe('This payment has already been rejected.');

    const confirmed = (await money.topUp(user, { amount: '4' }).expect(201)).body.payment.id;
    await money.decide(admin, confirmed, 'confirmed').expect(200);
    await money.decide(admin, confirmed, 'rejected').expect(409);
    await waitForBalance(user, 4);
    await money.decide(admin, new Types.ObjectId().toString(), 'confirmed').expect(404);
    await money.decide(admin, confirmed, 'approved').expect(400);
    await money.decide(user, confirmed, 'confirmed').expect(403);
    const events = await readEvents('payment.rejected', (e) => e.data.paymentId === rejected);
    expect(events).toHaveLength(1);
  });
});

describe('a decision racing a writer whose lock expired', () => {
  it('loses no payment.confirmed when stale copies of the payments are written back whole', async () => {
    const customers = await Promise.all(Array.from({ length: 20 }, () => customer()));
    const ids = await Promise.all(
      customers.map(async (user) => {
        const res = await money.topUp(user, { amount: '7' }, freshReceipt()).expect(201);
        return res.body.payment.id as string;
      }),
    );
    const payments = money.db.collection('payments');
    // What a writer read before the decisions, and writes back whole after its lock expired.
    const stale = await payments.find({ _id: { $in: ids.map((id) => new Types.ObjectId(id)) } }).toArray();
    const rewrites = stale.map(async (copy, i) => {
      for (let round = 0; round < 4; round++) {
        await new Promise((r) => setTimeout(r, 15 * ((i % 4) + 1)));
        await payments.replaceOne({ _id: copy._id }, copy);
      }
    });
    const decisions = ids.map((id) => money.decide(admin, id, 'confirmed').expect(200));
    await Promise.all([...rewrites, ...decisions]);

    // Each confirmed top-up reaches the wallet once, and its status comes back to confirmed.
    for (const [i, user] of customers.entries()) {
      await eventually(async () => ((await money.wallet.balance(user)) === 7 ? true : undefined), {
        what: `the credit of payment ${ids[i]}`,
      });
    }
    await eventually(
      async () =>
        (await payments.countDocuments({
          _id: { $in: ids.map((id) => new Types.ObjectId(id)) },
          status: 'confirmed',
        })) === ids.length || undefined,
      { timeoutMs: 60_000, what: 'every decided payment showing its decision' },
    );
    const again = await money.decide(admin, ids[0]!, 'confirmed');
    expect(again.status).toBe(409);
    for (const user of customers) expect(await money.wallet.balance(user)).toBe(7);
  }, 120_000);
});

describe('an admin’s money operations', () => {
  it('adds to a wallet and withdraws from it at once', async () => {
    const user = await customer();
    const added = await money
      .adminPayment(admin, { user_id: user.id, amount: 15, type: 'IN', status: 'waiting' })
      .expect(201);
    expect(added.body).toMatchObject({
      paymentStatus: true,
      message: '$15 added to wallet successfully.',
      payment: { product_name: 'Payment', status: 'confirmed', type: 'IN', username: user.username },
    });
    await waitForBalance(user, 15);
    const taken = await money
      .adminPayment(admin, { user_id: user.id, amount: 5.25, type: 'OUT' })
      .expect(201);
    expect(taken.body.message).toBe('$5.25 withdrawn from wallet successfully.');
    expect(await balanceOf(user)).toBe(9.75);

    const beyond = await money.adminPayment(admin, { user_id: user.id, amount: 10, type: 'OUT' }).expect(400);
    expect(beyond.body).toEqual({
      paymentStatus: false,
      error: 'Insufficient balance. You have only 9.75$ in your balance',
    });
    expect(await balanceOf(user)).toBe(9.75);
    expect(await money.db.collection('payments').countDocuments({ userId: user.id })).toBe(2);

    for (const amount of [0, -1, 'abc', null, 1.1234567]) {
      const bad = await money.adminPayment(admin, { user_id: user.id, amount, type: 'IN' }).expect(400);
      expect(bad.body.paymentStatus).toBe(false);
    }
    await money
      .adminPayment(admin, { user_id: new Types.ObjectId().toString(), amount: 1, type: 'IN' })
      .expect(404);
    expect(await money.reconcile()).toBe(0);
  });

  it('lets exactly 100 of 200 concurrent $1 withdrawals through a $100 balance', async () => {
    const user = await customer();
    await money.adminPayment(admin, { user_id: user.id, amount: 100, type: 'IN' }).expect(201);
    await waitForBalance(user, 100);
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        money.adminPayment(admin, { user_id: user.id, amount: 1, type: 'OUT' }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(100);
    expect(answers.filter((a) => a.status === 400)).toHaveLength(100);
    expect(await balanceOf(user)).toBe(0);
    expect(await money.db.collection('payments').countDocuments({ userId: user.id, type: 'OUT' })).toBe(100);
    expect(await money.reconcile()).toBe(0);
  });

  it('moves money once for a request retried with the same Idempotency-Key', async () => {
    const user = await customer();
    const key = `credit-${new Types.ObjectId()}`;
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        money
          .http()
          .post('/api/payments')
          .set(bearer(admin))
          .set('Idempotency-Key', key)
          .send({ user_id: user.id, amount: 8, type: 'IN' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.body.payment.id)).size).toBe(1);
    await waitForBalance(user, 8);
    expect(await money.db.collection('payments').countDocuments({ userId: user.id })).toBe(1);
  });

  it('refuses an Idempotency-Key reused for another user, amount, type or route, and moves nothing', async () => {
    const [user, other] = [await customer(), await customer()];
    const key = newKey();
    const send = (body: object, route = '/api/payments') =>
      money.http().post(route).set(bearer(admin)).set('Idempotency-Key', key).send(body);
    const credit = { user_id: user.id, amount: 8, type: 'IN' };
    const first = await send(credit).expect(201);
    await waitForBalance(user, 8);
    for (const [body, route] of [
      [{ ...credit, user_id: other.id }],
      [{ ...credit, amount: 9 }],
      [{ ...credit, type: 'OUT' }],
      [credit, '/api/debtpayment'],
    ] as [object, string?][]) {
      const reused = await send(body, route).expect(422);
      expect(reused.body).toEqual({ paymentStatus: false, error: KEY_REUSED });
    }
    const again = await send({ ...credit, amount: '8.000' }).expect(201);
    expect(again.body.payment.id).toBe(first.body.payment.id);

    // The other way round: a credit as debt, then its key on the plain route.
    const debtKey = newKey();
    const asDebt = (route: string) =>
      money.http().post(route).set(bearer(admin)).set('Idempotency-Key', debtKey).send(credit);
    const debt = await asDebt('/api/debtpayment').expect(201);
    await asDebt('/api/payments').expect(422);
    expect((await asDebt('/api/debtpayment').expect(201)).body.payment.id).toBe(debt.body.payment.id);

    await waitForBalance(user, 16);
    // Let any stray movement arrive before counting.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await balanceOf(user)).toBe(16);
    expect(await balanceOf(other)).toBe(0);
    const debtNow = await money.wallet.http().get('/api/debt').set(bearer(user)).expect(200);
    expect(debtNow.body).toEqual({ debt: 8 });
    expect(await paymentsOf(user)).toBe(2);
    expect(await paymentsOf(other)).toBe(0);
  });

  it('keeps the keys of two admins apart: one key string from each makes two payments', async () => {
    const user = await customer();
    const second = await newUser('admin');
    const key = newKey();
    const answers = await Promise.all(
      [admin, second].map((by) =>
        money
          .http()
          .post('/api/payments')
          .set(bearer(by))
          .set('Idempotency-Key', key)
          .send({ user_id: user.id, amount: 3, type: 'IN' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(idsOf(answers).size).toBe(2);
    await waitForBalance(user, 6);
  });

  it('gives credit as debt: the balance and the debt rise together', async () => {
    const user = await customer();
    const res = await money
      .adminPayment(admin, { user_id: user.id, amount: 30, type: 'IN' }, '/api/debtpayment')
      .expect(201);
    expect(res.body).toMatchObject({ paymentStatus: true, message: '$30 added to wallet successfully.' });
    await waitForBalance(user, 30);
    const debt = await money.wallet.http().get('/api/debt').set(bearer(user)).expect(200);
    expect(debt.body).toEqual({ debt: 30 });
    const confirmed = await readEvents('payment.confirmed', (e) => e.data.userId === user.id);
    expect(confirmed[0]?.data).toMatchObject({ asDebt: true, type: 'IN', amount: toMicros(30) });
  });

  it('keeps every admin operation to admins', async () => {
    const [user, other] = (await newUsers(2)) as [TestUser, TestUser];
    await money.known(user, other);
    const body = { user_id: other.id, amount: 5, type: 'IN' };
    await money.http().post('/api/payments').send(body).expect(401);
    await money.http().post('/api/debtpayment').set(bearer(user)).send(body).expect(403);
    // A customer's JSON "payment" is a top-up without a receipt, never a credit.
    await money.http().post('/api/payments').set(bearer(user)).send(body).expect(403);
    for (const path of [
      '/api/waiting-payments',
      '/api/payments',
      '/api/userpayment',
      '/api/payments/stats',
    ]) {
      await money.http().get(path).expect(401);
      await money.http().get(path).set(bearer(user)).expect(403);
    }
    await money
      .http()
      .post('/api/payments/mypayments')
      .set(bearer(user))
      .send({ userId: other.id })
      .expect(403);
    await money
      .http()
      .post('/api/payments/mypayments')
      .set(bearer(admin))
      .send({ userId: other.id })
      .expect(200);
    expect(await money.db.collection('payments').countDocuments({ userId: other.id })).toBe(0);
  });
});

describe('a withdrawal cut off between the debit and its record', () => {
  it('is recorded from the wallet’s event, and only if it was requested here', async () => {
    const user = await customer();
    await money.adminPayment(admin, { user_id: user.id, amount: 20, type: 'IN' }).expect(201);
    await waitForBalance(user, 20);
    // As if payments stopped right after the wallet answered: the request exists, the payment not.
    const paymentId = new Types.ObjectId().toString();
    await money.db.collection('payment_requests').insertOne({
      _id: `${admin.id}:cut-off-${paymentId}` as never,
      paymentId,
      userId: user.id,
      username: user.username,
      amount: toMicros(6),
      type: 'OUT',
      asDebt: false,
      createdBy: admin.id,
      at: new Date(),
    });
    const withdraw = (id: string) =>
      money.wallet.internal(`/internal/payments/${id}/withdraw`, {
        userId: user.id,
        amount: toMicros(6),
        productName: 'Payment',
      });
    await withdraw(paymentId).expect(200);
    const recorded = await eventually(
      async () =>
        (await money.db.collection('payments').findOne({ _id: new Types.ObjectId(paymentId) })) ?? undefined,
      { what: 'the withdrawal to be recorded' },
    );
    expect(recorded).toMatchObject({
      type: 'OUT',
      status: 'confirmed',
      amount: toMicros(6),
      createdBy: admin.id,
    });

    // An event naming a payment this service never requested is not turned into a payment.
    const stray = new Types.ObjectId().toString();
    await publishEvents('wallet.debited', {
      key: user.id,
      data: {
        userId: user.id,
        key: `payment:${stray}`,
        seq: 99,
        amount: 1,
        balance: 0,
        debt: 0,
        productName: 'Payment',
      },
    });
    await new Promise((r) => setTimeout(r, 2000));
    expect(await money.db.collection('payments').countDocuments({ _id: new Types.ObjectId(stray) })).toBe(0);
  });
});

describe('a deleted account', () => {
  it('sends no new top-ups and gets no new credits, while its earlier top-ups are still decided', async () => {
    const user = await customer();
    await money.adminPayment(admin, { user_id: user.id, amount: 10, type: 'IN' }).expect(201);
    await waitForBalance(user, 10);
    const confirmedLater = (await money.topUp(user, { amount: '4' }, freshReceipt()).expect(201)).body
      .payment;
    const rejectedLater = (await money.topUp(user, { amount: '5' }, freshReceipt()).expect(201)).body.payment;

    await publishEvents('user.deleted', deletion(user.id));
    await deletionApplied(user.id);

    const gone = { paymentStatus: false, error: 'This account has been deleted.' };
    const topUp = await money.topUp(user, { amount: '6' }, freshReceipt(), newKey()).expect(404);
    expect(topUp.body).toEqual(gone);
    for (const [body, route] of [
      [{ user_id: user.id, amount: 1, type: 'IN' }],
      [{ user_id: user.id, amount: 1, type: 'OUT' }],
      [{ user_id: user.id, amount: 1, type: 'IN' }, '/api/debtpayment'],
    ] as [object, string?][]) {
      const refused = await money.adminPayment(admin, body, route).expect(404);
      expect(refused.body).toEqual(gone);
    }
    expect(await paymentsOf(user)).toBe(3);
    expect(await receiptsOf(user)).toHaveLength(2);

    await money.decide(admin, confirmedLater.id, 'confirmed').expect(200);
    await money.decide(admin, rejectedLater.id, 'rejected').expect(200);
    const confirmed = await readEvents('payment.confirmed', (e) => e.data.paymentId === confirmedLater.id);
    expect(confirmed[0]?.data).toMatchObject({ userId: user.id, amount: toMicros(4) });
    await waitForBalance(user, 14);
    expect(await money.reconcile()).toBe(0);
  });

  it('stays deleted when its deletion arrives before its registration', async () => {
    const id = new Types.ObjectId().toString();
    const username = uniqueName('user');
    const user: TestUser = {
      id,
      username,
      role: 'user',
      token: signSession(
        { id, username, email: `${username}@example.com`, role: 'user', phone: '1', percentage: null },
        money.config.JWT_SECRET,
        3600,
      ),
    };
    // Each pair goes on one topic in order: once the second is applied, so is the first.
    const witness = await customer();
    await publishEvents('user.deleted', deletion(id), deletion(witness.id));
    await deletionApplied(witness.id);
    const [late, next] = [registration(id, username), registration(new Types.ObjectId().toString())];
    await publishEvents('user.registered', late, next);
    await eventually(
      async () =>
        (await money.db.collection('users').findOne({ _id: next.key as never })) ? true : undefined,
      { what: 'payments to learn of the registrations' },
    );

    const refused = await money.topUp(user, {}, freshReceipt()).expect(404);
    expect(refused.body).toEqual({ paymentStatus: false, error: 'This account has been deleted.' });
    await money.adminPayment(admin, { user_id: id, amount: 1, type: 'IN' }).expect(404);
    expect(await paymentsOf(user)).toBe(0);
  });
});

describe('lists and figures', () => {
  it('pages history by date and status, and counts sales from confirmed IN payments only', async () => {
    const user = await customer();
    await money.adminPayment(admin, { user_id: user.id, amount: 12, type: 'IN' }).expect(201);
    await waitForBalance(user, 12);
    await money.adminPayment(admin, { user_id: user.id, amount: 2, type: 'OUT' }).expect(201);
    await money.topUp(user, { amount: '50' }).expect(201);

    const before = (await money.http().get('/api/payments/stats').set(bearer(admin)).expect(200)).body;
    await money.adminPayment(admin, { user_id: user.id, amount: 3, type: 'IN' }).expect(201);
    const after = (await money.http().get('/api/payments/stats').set(bearer(admin)).expect(200)).body;
    expect(after.totalPayments).toBe(before.totalPayments + 1);
    expect(after.totalSales).toBeCloseTo(before.totalSales + 3, 6);
    expect(after.weeklySales).toBeCloseTo(before.weeklySales + 3, 6);
    expect(after.monthlySales).toBeCloseTo(before.monthlySales + 3, 6);
    expect(after.waitingPayments).toBe(before.waitingPayments);

    const totals = await money.http().get('/api/userpayment').set(bearer(admin)).expect(200);
    expect(totals.body).toContainEqual({ user_id: user.id, total_amount: 15 });

    const today = new Date(Date.now() + 2 * 3600_000).toISOString().slice(0, 10);
    const history = await money
      .http()
      .get(`/api/payments?from=${today}&to=${today}&status=confirmed&limit=2`)
      .set(bearer(admin))
      .expect(200);
    expect(history.body.payments).toHaveLength(2);
    expect(history.body.totalPages).toBeGreaterThanOrEqual(2);
    expect(history.body.payments.every((p: { status: string }) => p.status === 'confirmed')).toBe(true);
    const yesterday = await money
      .http()
      .get('/api/payments?from=2020-01-01&to=2020-01-01')
      .set(bearer(admin))
      .expect(200);
    expect(yesterday.body).toMatchObject({ payments: [], total: 0 });
    await money.http().get('/api/payments?from=not-a-date').set(bearer(admin)).expect(400);

    const mine = await money
      .http()
      .post('/api/payments/mypayments')
      .set(bearer(user))
      .send({ page: 1, limit: 10 })
      .expect(200);
    expect(mine.body.payments.map((p: { amount: number }) => p.amount)).toEqual([3, 50, 2, 12]);
  });

  it('tells Add Credit where to send the transfer', async () => {
    const res = await money.http().get('/api/payments/methods').expect(200);
    expect(res.body.methods.map((m: { name: string }) => m.name)).toEqual(['Whish-Money', 'Binance']);
    expect(res.body.methods[1].destinations).toHaveLength(3);
  });
});

describe('after every test above', () => {
  it('the ledger reconciles with the payments (npm run wallet:reconcile)', async () => {
    expect(await money.reconcile()).toBe(0);
  });
});
