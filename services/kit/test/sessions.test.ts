import { createEvent, redisConnection, SessionEnds, signSession, verifySession } from '@raseed/kit';

const SECRET = 'a-test-secret-of-at-least-32-characters';
const sessionOf = (id: string) =>
  verifySession(
    signSession({ id, username: 'u', email: 'u@x.y', role: 'user', phone: '', percentage: null }, SECRET, 60),
    SECRET,
  )!;

describe('SessionEnds while Redis is away', () => {
  it('still refuses the sessions whose end it learnt from the events, and keeps later ones', async () => {
    // Nothing listens on port 1: every command fails at once, as when Redis is down.
    const away = redisConnection('redis://127.0.0.1:1');
    away.on('error', () => undefined);
    try {
      const ends = new SessionEnds(away, 3600);
      const before = sessionOf('u1');
      const bystander = sessionOf('u2');
      await new Promise((r) => setTimeout(r, 5));
      await ends.learn(createEvent('auth', 'user.sessions-ended', 'u1', { userId: 'u1', at: Date.now() }));
      await new Promise((r) => setTimeout(r, 5));
      const after = sessionOf('u1');
      expect(await ends.valid(before)).toBe(false);
      expect(await ends.valid(after)).toBe(true);
      expect(await ends.valid(bystander)).toBe(true);
      // A token from before the claim existed counts as signed at 0: ended too.
      expect(await ends.valid({ ...before, signedAt: 0 })).toBe(false);
    } finally {
      away.disconnect();
    }
  });
});
