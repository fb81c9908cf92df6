import { startTestAuth, PASSWORD, type TestAuth } from './support';

/** The store cannot hold text with a NUL in it: such input is refused as bad, never a 500. */
let auth: TestAuth;
beforeAll(async () => {
  auth = await startTestAuth();
});
afterAll(() => auth.stop());

it.each([
  ['/api/signin', { email: '\u0000', password: PASSWORD }],
  ['/api/signin', { email: 'a@b.c', password: 'x\u0000y' }],
  [
    '/api/signup',
    { username: 'nul\u0000user', email: 'nul@example.com', phone: '+961 70 123456', password: PASSWORD },
  ],
  ['/api/reset-password-request', { email: 'x@example.com', ['k\u0000']: 1 }],
])('POST %s with a NUL character answers 400 and changes nothing', async (path, body) => {
  const users = await auth.db.collection('users').countDocuments();
  const res = await auth.http().post(path).send(body);
  expect([res.status, res.body.error]).toEqual([400, 'The request may not contain the character U+0000.']);
  expect(await auth.db.collection('users').countDocuments()).toBe(users);
});
