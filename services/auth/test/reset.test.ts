import { waitForEmail } from '@raseed/kit/testing';
import { PASSWORD, startTestAuth, type TestAuth } from './support';

let auth: TestAuth;
beforeAll(async () => {
  auth = await startTestAuth();
});
afterAll(() => auth.stop());

async function requestResetLink(email: string, already = 0): Promise<string> {
  const res = await auth.http().post('/api/reset-password-request').send({ email }).expect(200);
  expect(res.body).toEqual({ status: true, message: 'Check your email for the reset link.' });
  const mails = await waitForEmail(email, 20_000, already);
  const text = mails[mails.length - 1]?.text ?? '';
  const link = text.match(/https?:\/\/\S+\/reset-password\/([\w-]+)/);
  if (!link?.[1]) throw new Error(`no reset link in: ${text}`);
  expect(link[0].startsWith(`${auth.config.PUBLIC_URL}/reset-password/`)).toBe(true);
  return link[1];
}

describe('password reset', () => {
  it('e-mails a link that resets the password exactly once', async () => {
    const customer = await auth.newCustomer();
    const token = await requestResetLink(customer.email);
    const stored = await auth.db.collection('password_resets').findOne({});
    expect(JSON.stringify(stored)).not.toContain(token);

    const done = await auth
      .http()
      .post(`/api/reset-password/${token}`)
      .send({ newPassword: 'a-new-password-1' })
      .expect(200);
    expect(done.body).toEqual({ status: true, message: 'Password reset successful!' });
    await auth.signIn(customer.email, 'a-new-password-1');
    await auth.http().post('/api/signin').send({ email: customer.email, password: PASSWORD }).expect(401);

    const again = await auth
      .http()
      .post(`/api/reset-password/${token}`)
      .send({ newPassword: 'another-password-2' })
      .expect(400);
    expect(again.body).toMatchObject({ status: false, error: 'Password reset failed' });
    await auth.signIn(customer.email, 'a-new-password-1');
  });

  it('refuses a link past its hour', async () => {
    const customer = await auth.newCustomer();
    const token = await requestResetLink(customer.email);
    await auth.db
      .collection('password_resets')
      .updateMany({ usedAt: null }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await auth
      .http()
      .post(`/api/reset-password/${token}`)
      .send({ newPassword: 'a-new-password-1' })
      .expect(400);
    expect(res.body).toMatchObject({ status: false, error: 'Password reset failed' });
    await auth.signIn(customer.email, PASSWORD);
  });

  it('checks the new password with the spec text before using the link', async () => {
    const customer = await auth.newCustomer();
    const token = await requestResetLink(customer.email);
    const res = await auth
      .http()
      .post(`/api/reset-password/${token}`)
      .send({ newPassword: 'short' })
      .expect(400);
    expect(res.body).toEqual({ status: false, error: 'Password must be at least 8 characters' });
    await auth.http().post(`/api/reset-password/${token}`).send({ newPassword: 'long-enough-1' }).expect(200);
  });

  it('answers an unknown address exactly as a known one, and sends nothing', async () => {
    const res = await auth
      .http()
      .post('/api/reset-password-request')
      .send({ email: 'nobody-here@example.com' })
      .expect(200);
    expect(res.body).toEqual({ status: true, message: 'Check your email for the reset link.' });
    await expect(waitForEmail('nobody-here@example.com', 1500)).rejects.toThrow('no e-mail');

    const bad = await auth
      .http()
      .post('/api/reset-password-request')
      .send({ email: 'not-an-email' })
      .expect(400);
    expect(bad.body).toEqual({ status: false, error: 'Please enter a valid email address' });
  });
});
