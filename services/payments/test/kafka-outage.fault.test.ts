import { eventually, infra } from '@raseed/kit/testing';
import { bearer, newUser, type TestUser } from '../../wallet/test/support';
import { startMoneyServices, type MoneyServices } from './support';

let money: MoneyServices;
let admin: TestUser;
beforeAll(async () => {
  money = await startMoneyServices();
  admin = await newUser('admin');
});
afterAll(async () => {
  await infra('up', 'kafka');
  await money.stop();
});

describe('with the Kafka broker down between a confirm and its credit', () => {
  it('credits the payment exactly once when the broker is back', async () => {
    const user = await newUser();
    await money.known(user);
    const { body } = await money.topUp(user, { amount: '42' }).expect(201);

    await infra('down', 'kafka');
    await money.decide(admin, body.payment.id, 'confirmed').expect(200);
    // The payment.confirmed event waits in the outbox, carried by the decision; no money has moved.
    const pending = await money.db
      .collection('outbox')
      .findOne({ _id: `payment_decisions:${body.payment.id}` as never });
    expect(pending).not.toBeNull();
    await new Promise((r) => setTimeout(r, 2000));
    expect(await money.wallet.balance(user)).toBe(0);

    await infra('up', 'kafka');
    await eventually(async () => ((await money.wallet.balance(user)) === 42 ? true : undefined), {
      timeoutMs: 90_000,
      what: 'the credit after the broker restart',
    });
    await new Promise((r) => setTimeout(r, 3000));
    const credits = (await money.wallet.entries(user.id)).filter((e) => e.kind === 'movement');
    expect(credits).toHaveLength(1);
    expect(await money.wallet.balance(user)).toBe(42);
    expect(await money.reconcile()).toBe(0);
    const mine = await money.http().post('/api/payments/mypayments').set(bearer(user)).send({}).expect(200);
    expect(mine.body.payments[0].status).toBe('confirmed');
    // Longer than the wait for the credit: a broker restart and the group's rejoin take their time.
  }, 150_000);
});
