import { readEvents, uniqueName } from '@raseed/kit/testing';
import { PASSWORD, startTestAuth, type TestAuth } from './support';

let auth: TestAuth;
beforeAll(async () => {
  auth = await startTestAuth();
});
afterAll(() => auth.stop());

const newAccount = () => {
  const username = uniqueName('sara');
  return { username, email: `${username}@Example.com`, phone: '+961 70 000000', password: PASSWORD };
};
const userCount = () => auth.db.collection('users').countDocuments();

describe('POST /api/signup', () => {
  it('stores the user with a hashed password and publishes user.registered', async () => {
    const account = newAccount();
    const res = await auth.http().post('/api/signup').send(account).expect(201);
    expect(res.body).toEqual({ signupStatus: true, message: expect.any(String) });

    const stored = await auth.db.collection('users').findOne({ email: account.email.toLowerCase() });
    expect(stored).toMatchObject({ username: account.username, phone: account.phone, role: 'user' });
    expect(stored?.passwordHash).toMatch(/^\$2[aby]\$10\$/);
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);

    const events = await readEvents('user.registered', (e) => e.data.email === account.email.toLowerCase());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      source: 'auth',
      key: String(stored?._id),
      data: { userId: String(stored?._id), username: account.username, role: 'user' },
    });
  });

  it('answers 409 for an e-mail or a username already taken, whatever their case', async () => {
    const account = newAccount();
    await auth.http().post('/api/signup').send(account).expect(201);
    const before = await userCount();

    const sameEmail = await auth
      .http()
      .post('/api/signup')
      .send({ ...newAccount(), email: account.email.toUpperCase() })
      .expect(409);
    expect(sameEmail.body).toEqual({ signupStatus: false, error: 'This email is already registered' });

    const sameName = await auth
      .http()
      .post('/api/signup')
      .send({ ...newAccount(), username: account.username.toUpperCase() })
      .expect(409);
    expect(sameName.body).toEqual({ signupStatus: false, error: 'This username is already taken' });
    expect(await userCount()).toBe(before);
  });

  it.each([
    ['a short password', { password: 'short7!' }, 'Password must be at least 8 characters long'],
    ['a bad e-mail', { email: 'not-an-email' }, 'Please enter a valid email address'],
    ['a missing field', { phone: undefined }, 'All fields are required'],
    ['a blank field', { username: '   ' }, 'All fields are required'],
    ['an operator object as the e-mail', { email: { $gt: '' } }, 'All fields are required'],
    ['a number as the password', { password: 12345678 }, 'All fields are required'],
  ])('answers 400 with the spec text for %s and stores nothing', async (_case, change, error) => {
    const before = await userCount();
    const res = await auth
      .http()
      .post('/api/signup')
      .send({ ...newAccount(), ...change })
      .expect(400);
    expect(res.body).toEqual({ signupStatus: false, error });
    expect(await userCount()).toBe(before);
  });

  it('answers 4xx, never 5xx, to malformed JSON and to a 2 MB body, and stores nothing', async () => {
    const before = await userCount();
    const malformed = await auth
      .http()
      .post('/api/signup')
      .set('Content-Type', 'application/json')
      .send('{"username": "x", ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toEqual(expect.any(String));

    const huge = await auth
      .http()
      .post('/api/signup')
      .send({ ...newAccount(), phone: 'x'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(await userCount()).toBe(before);
  });
});
