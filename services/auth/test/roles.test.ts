import { readEvents } from '@raseed/kit/testing';
import { bearer, PASSWORD, startTestAuth, type TestAuth } from './support';

let auth: TestAuth;
let admin: string;
beforeAll(async () => {
  auth = await startTestAuth();
  admin = await auth.adminToken();
});
afterAll(() => auth.stop());

const adminRoutes = (otherId: string) =>
  [
    ['get', '/api/users'],
    ['get', '/api/users/search?query=a'],
    ['get', '/api/users/count'],
    ['post', '/api/create-admin'],
    ['post', '/api/discount'],
    ['delete', `/api/users/${otherId}`],
  ] as const;

describe('roles on the server', () => {
  it('answers 401 to a visitor and 403 to a customer on every admin route, changing nothing', async () => {
    const customer = await auth.newCustomer();
    const other = await auth.newCustomer();
    const before = await auth.db.collection('users').countDocuments();
    const body = {
      user_id: other.id,
      percentage: 10,
      email: 'x@example.com',
      password: PASSWORD,
      phone: '1',
      username: 'x',
    };
    for (const [method, path] of adminRoutes(other.id)) {
      const visitor = await auth.http()[method](path).send(body);
      expect([path, visitor.status]).toEqual([path, 401]);
      const user = await auth.http()[method](path).set(bearer(customer.token)).send(body);
      expect([path, user.status]).toEqual([path, 403]);
      expect(user.body.error).toEqual(expect.any(String));
    }
    expect(await auth.db.collection('users').countDocuments()).toBe(before);
    expect(await auth.db.collection('users').findOne({ email: other.email })).toMatchObject({
      percentage: null,
    });
  });

  it('lets a customer read only their own account', async () => {
    const customer = await auth.newCustomer();
    const other = await auth.newCustomer();
    await auth.http().get(`/api/users/${customer.id}`).set(bearer(customer.token)).expect(200);
    const res = await auth.http().get(`/api/users/${other.id}`).set(bearer(customer.token)).expect(403);
    expect(res.body.error).toBe('You do not have permission to access this profile.');
    await auth.http().get(`/api/userdiscount/${other.id}`).set(bearer(customer.token)).expect(403);
    await auth.http().delete(`/api/users/${other.id}`).set(bearer(customer.token)).expect(403);
    await auth.http().get(`/api/users/${other.id}`).set(bearer(admin)).expect(200);
  });

  it('lets a customer delete their own account, erasing it and publishing user.deleted', async () => {
    const customer = await auth.newCustomer();
    const res = await auth.http().delete(`/api/users/${customer.id}`).set(bearer(customer.token)).expect(200);
    expect(res.body).toEqual({ success: true, message: 'Account deleted successfully' });
    expect(await auth.db.collection('users').findOne({ email: customer.email })).toBeNull();
    await auth.http().post('/api/signin').send({ email: customer.email, password: PASSWORD }).expect(401);
    await auth.http().get(`/api/users/${customer.id}`).set(bearer(admin)).expect(404);
    const events = await readEvents('user.deleted', (e) => e.data.userId === customer.id);
    expect(events).toHaveLength(1);
  });

  it('lists, searches and counts users for an admin', async () => {
    const customer = await auth.newCustomer();
    const count = await auth.http().get('/api/users/count').set(bearer(admin)).expect(200);
    expect(count.body.count).toBe(await auth.db.collection('users').countDocuments({ deletedAt: null }));

    const page = await auth.http().get('/api/users?page=1&limit=2').set(bearer(admin)).expect(200);
    expect(page.body.users).toHaveLength(2);
    expect(page.body.totalPages).toBe(Math.ceil(count.body.count / 2));
    expect(page.body.users[0]).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        username: expect.any(String),
        role: expect.any(String),
      }),
    );
    expect(page.body.users[0]).not.toHaveProperty('passwordHash');

    const found = await auth
      .http()
      .get(`/api/users/search?query=${customer.username.toUpperCase()}`)
      .set(bearer(admin))
      .expect(200);
    expect(found.body.map((u: { id: string }) => u.id)).toContain(customer.id);

    const empty = await auth.http().get('/api/users/search?query=%20').set(bearer(admin)).expect(400);
    expect(empty.body.error).toBe('Please enter a search query.');
    const regex = await auth.http().get('/api/users/search?query=.*').set(bearer(admin)).expect(200);
    expect(regex.body).toEqual([]);
  });

  it('pages search results like the list, with the totals in headers', async () => {
    for (let i = 0; i < 12; i++) await auth.newCustomer();
    const matching = await auth.db.collection('users').countDocuments({ email: /example\.com/i });
    expect(matching).toBeGreaterThanOrEqual(12);
    const search = (page: number) =>
      auth
        .http()
        .get('/api/users/search')
        .query({ query: 'EXAMPLE.com', page })
        .set(bearer(admin))
        .expect(200);
    const first = await search(1);
    expect(first.body).toHaveLength(10);
    expect(first.headers['x-total-count']).toBe(String(matching));
    expect(first.headers['x-total-pages']).toBe(String(Math.ceil(matching / 10)));
    const ids = new Set<string>();
    for (let page = 1; page <= Math.ceil(matching / 10); page++) {
      for (const user of (await search(page)).body as { id: string }[]) ids.add(user.id);
    }
    expect(ids.size).toBe(matching);
    // The last page and one past it tell the same total (the first from its length, the second counted).
    const pages = Math.ceil(matching / 10);
    for (const page of [pages, pages + 1]) {
      const answer = await search(page);
      expect(answer.body).toHaveLength(page > pages ? 0 : matching - (pages - 1) * 10);
      expect(answer.headers['x-total-count']).toBe(String(matching));
    }
    const bad = await auth.http().get('/api/users/search?query=a&page=0').set(bearer(admin)).expect(400);
    expect(bad.body.error).toEqual(expect.any(String));
  });

  it('lets an admin create another admin who can then sign in as admin', async () => {
    const res = await auth
      .http()
      .post('/api/create-admin')
      .set(bearer(admin))
      .send({
        username: 'second-admin',
        email: 'second-admin@raseed.test',
        password: PASSWORD,
        phone: '03 000000',
      })
      .expect(201);
    expect(res.body).toEqual({ success: true, message: 'Admin created successfully' });
    const token = await auth.signIn('second-admin@raseed.test');
    await auth.http().get('/api/users/count').set(bearer(token)).expect(200);

    const short = await auth
      .http()
      .post('/api/create-admin')
      .set(bearer(admin))
      .send({ username: 'third', email: 'third@raseed.test', password: 'short', phone: '1' })
      .expect(400);
    expect(short.body).toEqual({ success: false, error: 'Password must be at least 8 characters long' });
  });

  it('sets and removes a discount, publishing user.discount-changed', async () => {
    const customer = await auth.newCustomer();
    const set = await auth
      .http()
      .post('/api/discount')
      .set(bearer(admin))
      .send({ user_id: customer.id, percentage: 12.5, userPaymentSums: 40.25 })
      .expect(200);
    expect(set.body).toEqual({ success: true, message: 'Discount percentage set successfully' });
    const mine = await auth
      .http()
      .get(`/api/userdiscount/${customer.id}`)
      .set(bearer(customer.token))
      .expect(200);
    expect(mine.body).toEqual({ success: true, percentage: 12.5 });
    const stored = await auth.db.collection('users').findOne({ email: customer.email });
    // The client's payment sums are not trusted: the server marks the point itself.
    expect(stored).toMatchObject({ percentage: 12.5, salesSince: expect.any(Date) });
    expect(stored?.lastSales).toBeUndefined();

    for (const percentage of [0, -3, 101, '10']) {
      const bad = await auth
        .http()
        .post('/api/discount')
        .set(bearer(admin))
        .send({ user_id: customer.id, percentage })
        .expect(400);
      expect(bad.body).toEqual({ success: false, error: 'Please enter a valid percentage (greater than 0)' });
    }

    const removed = await auth
      .http()
      .post('/api/discount')
      .set(bearer(admin))
      .send({ user_id: customer.id, percentage: null })
      .expect(200);
    expect(removed.body.message).toBe('Discount removed successfully');
    const events = await readEvents('user.discount-changed', (e) => e.data.userId === customer.id, {
      count: 2,
    });
    expect(events.map((e) => e.data.percentage)).toEqual([12.5, null]);
  });

  it('keeps the last admin', async () => {
    const admins = await auth.db.collection('users').find({ role: 'admin', deletedAt: null }).toArray();
    const [onlyAdmin, ...others] = [
      ...admins.filter((a) => a.email === auth.adminEmail),
      ...admins.filter((a) => a.email !== auth.adminEmail),
    ];
    for (const other of others) {
      await auth.http().delete(`/api/users/${other._id}`).set(bearer(admin)).expect(200);
    }
    const res = await auth.http().delete(`/api/users/${onlyAdmin?._id}`).set(bearer(admin)).expect(409);
    expect(res.body.error).toBe('The last admin account cannot be deleted');
  });
});
