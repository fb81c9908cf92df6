import jwt from 'jsonwebtoken';
import { PASSWORD, startTestAuth, type TestAuth } from './support';

let auth: TestAuth;
beforeAll(async () => {
  auth = await startTestAuth();
});
afterAll(() => auth.stop());

function tokenCookie(setCookie: string[] | string | undefined): string {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const cookie = cookies.find((c) => c.startsWith('token='));
  if (!cookie) throw new Error('no token cookie was set');
  return cookie;
}

describe('POST /api/signin', () => {
  it('sets an httpOnly, SameSite=Lax token cookie holding the session claims, and returns the token', async () => {
    const customer = await auth.newCustomer();
    const res = await auth
      .http()
      .post('/api/signin')
      .send({ email: customer.email, password: PASSWORD })
      .expect(200);

    expect(res.body).toMatchObject({ signInStatus: true, token: expect.any(String) });
    const cookie = tokenCookie(res.headers['set-cookie']);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toContain(`token=${res.body.token};`);

    const claims = jwt.verify(res.body.token, auth.config.JWT_SECRET) as Record<string, unknown>;
    expect(claims).toMatchObject({
      id: customer.id,
      username: customer.username,
      email: customer.email,
      role: 'user',
      phone: '+961 70 123456',
      percentage: null,
      authorized: true,
    });
  });

  it('answers 401 with a clear error for a wrong password or an unknown e-mail, and sets no cookie', async () => {
    const customer = await auth.newCustomer();
    for (const attempt of [
      { email: customer.email, password: 'wrong-password' },
      { email: 'nobody@example.com', password: PASSWORD },
    ]) {
      const res = await auth.http().post('/api/signin').send(attempt).expect(401);
      expect(res.body).toEqual({ signInStatus: false, error: 'Invalid email or password' });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('answers 400 to an operator object in place of the e-mail', async () => {
    const res = await auth
      .http()
      .post('/api/signin')
      .send({ email: { $gt: '' }, password: PASSWORD })
      .expect(400);
    expect(res.body.signInStatus).toBe(false);
  });

  it('lets the session cookie authenticate later calls, and logout clears it', async () => {
    const customer = await auth.newCustomer();
    const signIn = await auth.http().post('/api/signin').send({ email: customer.email, password: PASSWORD });
    const cookie = tokenCookie(signIn.headers['set-cookie']).split(';')[0] as string;

    const me = await auth.http().get(`/api/users/${customer.id}`).set('Cookie', cookie).expect(200);
    expect(me.body.user).toMatchObject({ username: customer.username, email: customer.email });

    const out = await auth.http().post('/api/logout').set('Cookie', cookie).expect(200);
    expect(out.body).toEqual({ message: 'Logged out successfully' });
    expect(tokenCookie(out.headers['set-cookie'])).toMatch(/^token=;.*Expires=Thu, 01 Jan 1970/);
  });
});
