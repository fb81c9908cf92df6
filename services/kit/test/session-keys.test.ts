import {
  createApp,
  createLogger,
  keyId,
  requireUser,
  sessionKeys,
  signSession,
  verifySession,
} from '@raseed/kit';
import { Router } from 'express';
import jwt from 'jsonwebtoken';
import supertest from 'supertest';

/** Rotating JWT_SECRET: sessions signed with the previous key stay valid while it is configured. */
const OLD = 'the-previous-session-secret-of-32-characters';
const NEW = 'the-current-session-secret-of-32-characters!';
const user = {
  id: '64b000000000000000000001',
  username: 'sam',
  email: 'sam@example.com',
  role: 'user' as const,
  phone: '1',
  percentage: null,
};

describe('session keys', () => {
  it('names the signing key in the header by a digest, never the key itself', () => {
    const token = signSession(user, NEW, 60);
    const header = jwt.decode(token, { complete: true })!.header;
    expect(header.kid).toBe(keyId(NEW));
    expect(token).not.toContain(Buffer.from(NEW).toString('base64url').slice(0, 12));
  });

  it('accepts a session signed with the previous key only while that key is configured', () => {
    const before = signSession(user, OLD, 60);
    expect(verifySession(before, [NEW, OLD])?.id).toBe(user.id);
    expect(verifySession(before, [NEW])).toBeNull();
    expect(verifySession(signSession(user, NEW, 60), [NEW, OLD])?.id).toBe(user.id);
  });

  it('accepts a session signed before keys were named, with either key', () => {
    const unnamed = jwt.sign({ ...user, authorized: true, signedAt: Date.now() }, OLD, {
      algorithm: 'HS256',
      expiresIn: 60,
    });
    expect(verifySession(unnamed, [NEW, OLD])?.id).toBe(user.id);
    expect(verifySession(unnamed, NEW)).toBeNull();
  });

  it('refuses a token naming a configured key but signed with another', () => {
    const forged = jwt.sign({ ...user, authorized: true }, 'an-attacker-secret-of-32-characters-long', {
      algorithm: 'HS256',
      keyid: keyId(OLD),
    });
    expect(verifySession(forged, [NEW, OLD])).toBeNull();
  });

  it('reads JWT_PREVIOUS_SECRET beside JWT_SECRET, current first', () => {
    expect(sessionKeys({ JWT_SECRET: NEW, JWT_PREVIOUS_SECRET: OLD })).toEqual([NEW, OLD]);
    expect(sessionKeys({ JWT_SECRET: NEW })).toEqual([NEW]);
  });

  it('lets a service accept both during the rotation', async () => {
    const routes = Router().get('/me', requireUser, (req, res) => void res.json({ id: req.user!.id }));
    const app = createApp({
      logger: createLogger('test', 'silent'),
      jwtSecret: [NEW, OLD],
      routes,
      readiness: {},
    });
    for (const key of [NEW, OLD]) {
      await supertest(app)
        .get('/me')
        .set('Authorization', `Bearer ${signSession(user, key, 60)}`)
        .expect(200, { id: user.id });
    }
    const other = signSession(user, 'yet-another-secret-of-at-least-32-chars', 60);
    await supertest(app).get('/me').set('Authorization', `Bearer ${other}`).expect(401);
  });
});
