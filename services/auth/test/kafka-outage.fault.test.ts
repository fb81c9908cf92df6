import { infra, readEvents, uniqueName } from '@raseed/kit/testing';
import { PASSWORD, startTestAuth, type TestAuth } from './support';

let auth: TestAuth;
beforeAll(async () => {
  auth = await startTestAuth();
});
afterAll(async () => {
  await infra('up', 'kafka');
  await auth.stop();
});

describe('with the Kafka broker down', () => {
  it('still signs users up, and publishes each user.registered exactly once when the broker is back', async () => {
    await infra('down', 'kafka');
    const emails = [1, 2, 3].map(() => `${uniqueName('outage')}@example.com`);
    for (const email of emails) {
      await auth
        .http()
        .post('/api/signup')
        .send({ username: email.split('@')[0], email, phone: '70000000', password: PASSWORD })
        .expect(201);
    }
    // The events wait in the outbox (a pointer to each new user) while the broker is away.
    const ids = (
      await auth.db
        .collection('users')
        .find({ email: { $in: emails } })
        .toArray()
    ).map((u) => `users:${String(u._id)}`);
    const waiting = () => auth.db.collection('outbox').countDocuments({ _id: { $in: ids } as never });
    expect(await waiting()).toBe(3);

    await infra('up', 'kafka');
    const events = await readEvents('user.registered', (e) => emails.includes(e.data.email), {
      count: 3,
      timeoutMs: 60_000,
      settleMs: 3000,
    });
    expect(events.map((e) => e.data.email).sort()).toEqual([...emails].sort());
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    expect(await waiting()).toBe(0);
  });
});
