import { waitForEmail } from '@raseed/kit/testing';
import { startTestWallet, type TestWallet } from '../../wallet/test/support';
import { bearer, PASSWORD, startTestAuth, type TestAuth } from './support';

/**
 * Issue 16: sessions that end. Logout, a password reset and an account's deletion end every
 * session of that user at once, on auth and on every other service (the wallet here).
 */
let auth: TestAuth;
let wallet: TestWallet;
beforeAll(async () => {
  [auth, wallet] = await Promise.all([startTestAuth(), startTestWallet()]);
});
afterAll(async () => {
  await Promise.all([auth.stop(), wallet.stop()]);
});

/** The statuses a token gets from auth and from the wallet. */
async function statuses(token: string, userId: string) {
  const [own, balance] = await Promise.all([
    auth.http().get(`/api/users/${userId}`).set(bearer(token)),
    wallet.http().get('/api/balance').set(bearer(token)),
  ]);
  return [own.status, balance.status];
}

describe('sessions that end', () => {
  it('logout ends every session of the account on every service at once; a new sign-in works', async () => {
    const customer = await auth.newCustomer();
    const other = await auth.signIn(customer.email);
    const bystander = await auth.newCustomer();
    expect(await statuses(customer.token, customer.id)).toEqual([200, 200]);
    expect(await statuses(other, customer.id)).toEqual([200, 200]);

    await auth.http().post('/api/logout').set(bearer(customer.token)).expect(200);
    // Answered only once recorded: no wait is needed for the end to hold everywhere.
    expect(await statuses(customer.token, customer.id)).toEqual([401, 401]);
    expect(await statuses(other, customer.id)).toEqual([401, 401]);
    expect(await statuses(bystander.token, bystander.id)).toEqual([200, 200]);

    const again = await auth.signIn(customer.email);
    expect(await statuses(again, customer.id)).toEqual([200, 200]);
    // Logging out with an ended session changes nothing more.
    await auth.http().post('/api/logout').set(bearer(other)).expect(200);
    expect(await statuses(again, customer.id)).toEqual([200, 200]);
  });

  it('a password reset ends every session signed before it', async () => {
    const customer = await auth.newCustomer();
    await auth.http().post('/api/reset-password-request').send({ email: customer.email }).expect(200);
    const text = (await waitForEmail(customer.email, 20_000))[0]?.text ?? '';
    const link = text.match(/\/reset-password\/([\w-]+)/)?.[1];
    expect(link).toBeDefined();
    expect(await statuses(customer.token, customer.id)).toEqual([200, 200]);

    await auth
      .http()
      .post(`/api/reset-password/${link}`)
      .send({ newPassword: 'a-new-password-1' })
      .expect(200);
    expect(await statuses(customer.token, customer.id)).toEqual([401, 401]);
    const fresh = await auth.signIn(customer.email, 'a-new-password-1');
    expect(await statuses(fresh, customer.id)).toEqual([200, 200]);
  });

  it('a deleted admin can no longer list users, create an admin or credit a wallet', async () => {
    const admin = await auth.adminToken();
    const email = `deleted-admin-${Date.now()}@example.com`;
    await auth
      .http()
      .post('/api/create-admin')
      .set(bearer(admin))
      .send({ username: `gone${Date.now()}`, email, phone: '70123456', password: PASSWORD })
      .expect(201);
    const doomed = await auth.signIn(email);
    const id = String((await auth.db.collection('users').findOne({ email }))?._id);
    await auth.http().get('/api/users').set(bearer(doomed)).expect(200);

    await auth.http().delete(`/api/users/${id}`).set(bearer(admin)).expect(200);
    await auth.http().get('/api/users').set(bearer(doomed)).expect(401);
    const promoted = `promoted-${Date.now()}@example.com`;
    await auth
      .http()
      .post('/api/create-admin')
      .set(bearer(doomed))
      .send({ username: `nope${Date.now()}`, email: promoted, phone: '70123456', password: PASSWORD })
      .expect(401);
    expect(await auth.db.collection('users').findOne({ email: promoted })).toBeNull();
    await wallet.http().get('/api/balance').set(bearer(doomed)).expect(401);
    // The admin who deleted it is untouched.
    await auth.http().get('/api/users').set(bearer(admin)).expect(200);
  });

  // Last in the file: the first admin may be the one deleted.
  it('two admins deleting each other at once leave exactly one admin, round after round', async () => {
    const admins = () => auth.db.collection('users').find({ role: 'admin', deletedAt: null }).toArray();
    expect(await admins()).toHaveLength(1);
    let survivor = { email: auth.adminEmail, token: await auth.adminToken() };
    for (let round = 1; round <= 5; round++) {
      const email = `pair-${round}-${Date.now()}@example.com`;
      await auth
        .http()
        .post('/api/create-admin')
        .set(bearer(survivor.token))
        .send({ username: `pair${round}${Date.now()}`, email, phone: '70123456', password: PASSWORD })
        .expect(201);
      const other = { email, token: await auth.signIn(email) };
      const idOf = async (address: string) =>
        String((await auth.db.collection('users').findOne({ email: address }))?._id);
      const [survivorId, otherId] = await Promise.all([idOf(survivor.email), idOf(other.email)]);
      const answers = await Promise.all([
        auth.http().delete(`/api/users/${otherId}`).set(bearer(survivor.token)),
        auth.http().delete(`/api/users/${survivorId}`).set(bearer(other.token)),
      ]);
      // One deletion goes through; the other finds the last admin (409) or its own session ended (401).
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const refused of answers.filter((a) => a.status !== 200))
        expect([401, 409]).toContain(refused.status);
      const left = await admins();
      expect(left).toHaveLength(1);
      const email0 = left[0]!.email as string;
      survivor = { email: email0, token: await auth.signIn(email0) };
    }
  });
});
