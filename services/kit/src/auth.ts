import { createHash, createSecretKey, type KeyObject } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import jwt from 'jsonwebtoken';
import { forbidden, unauthorized } from './errors';
import type { SessionEnds } from './sessions';

export type Role = 'admin' | 'user';

/** The session claims the spec's client reads from the token. */
export interface SessionUser {
  id: string;
  username: string;
  email: string;
  role: Role;
  phone: string;
  percentage: number | null;
  authorized: true;
  /** When the session was signed (ms since the epoch; 0 on tokens older than the claim): see SessionEnds. */
  signedAt: number;
}

declare module 'express-serve-static-core' {
  interface Request {
    user?: SessionUser;
  }
}

export const SESSION_COOKIE = 'token';

/**
 * The keys sessions are checked with: the current secret first, then, while a rotation is under
 * way, the previous one (JWT_PREVIOUS_SECRET), so sessions signed before it stay valid until they
 * expire (OPERATIONS.md, Rotating the session secret).
 */
export type SessionKeys = string | readonly string[];

/** The keys of a configuration: JWT_SECRET, and JWT_PREVIOUS_SECRET while a rotation is under way. */
export const sessionKeys = (config: { JWT_SECRET: string; JWT_PREVIOUS_SECRET?: string }): string[] =>
  [config.JWT_SECRET, config.JWT_PREVIOUS_SECRET].filter((key): key is string => !!key);

/** A key's public name in a token's header (`kid`): a digest, never the key. */
export const keyId = (secret: string) => createHash('sha256').update(secret).digest('hex').slice(0, 16);

/**
 * Each secret as a ready key with its name, made once per process. Given the secret as text,
 * jsonwebtoken first tries to read it as a public key, which throws (a stack trace built on
 * every request), then makes the secret key; that was 3% of the orders service's CPU.
 */
const prepared = new Map<string, { key: KeyObject; id: string }>();
function preparedKey(secret: string) {
  let found = prepared.get(secret);
  if (!found) {
    found = { key: createSecretKey(Buffer.from(secret)), id: keyId(secret) };
    prepared.set(secret, found);
  }
  return found;
}

/** Signs with the current key, named in the header so a verifier picks it without trying others. */
export function signSession(
  user: Omit<SessionUser, 'authorized' | 'signedAt'>,
  secret: string,
  ttlSeconds: number,
): string {
  const claims: SessionUser = { ...user, authorized: true, signedAt: Date.now() };
  const { key, id } = preparedKey(secret);
  return jwt.sign(claims, key, { algorithm: 'HS256', expiresIn: ttlSeconds, keyid: id });
}

/** The key a token names; a token that names none (signed before keys had names) may be any. */
function keysFor(token: string, keys: SessionKeys): readonly string[] {
  const all = typeof keys === 'string' ? [keys] : keys;
  const kid = jwt.decode(token, { complete: true })?.header.kid;
  return kid === undefined ? all : all.filter((key) => preparedKey(key).id === kid);
}

export function verifySession(token: string, keys: SessionKeys): SessionUser | null {
  for (const key of keysFor(token, keys)) {
    const user = verifyWith(token, key);
    if (user) return user;
  }
  return null;
}

function verifyWith(token: string, secret: string): SessionUser | null {
  try {
    const claims = jwt.verify(token, preparedKey(secret).key, { algorithms: ['HS256'] });
    if (typeof claims !== 'object' || claims === null) return null;
    const { id, username, email, role, phone, percentage, authorized, signedAt } = claims as Record<
      string,
      unknown
    >;
    if (typeof id !== 'string' || authorized !== true || (role !== 'admin' && role !== 'user')) return null;
    return {
      id,
      username: String(username),
      email: String(email),
      role,
      phone: String(phone ?? ''),
      percentage: typeof percentage === 'number' ? percentage : null,
      authorized: true,
      signedAt: typeof signedAt === 'number' && Number.isSafeInteger(signedAt) ? signedAt : 0,
    };
  } catch {
    return null;
  }
}

/** Reads the session from the `token` cookie, or from an `Authorization: Bearer` header. */
export function sessionFrom(req: Request, secret: SessionKeys): SessionUser | null {
  const cookies = req.cookies as Record<string, unknown> | undefined;
  const cookie = cookies?.[SESSION_COOKIE];
  const header = req.headers.authorization;
  const token =
    typeof cookie === 'string' && cookie
      ? cookie
      : header?.startsWith('Bearer ')
        ? header.slice(7)
        : undefined;
  return token ? verifySession(token, secret) : null;
}

/** The request's session when it is valid and has not been ended (logout, a reset, a deletion: see SessionEnds). */
export async function liveSessionFrom(
  req: Request,
  secret: SessionKeys,
  ends?: SessionEnds,
): Promise<SessionUser | null> {
  const user = sessionFrom(req, secret);
  return user && (!ends || (await ends.valid(user))) ? user : null;
}

/** Sets `req.user` when the request carries a live session; never rejects by itself. */
export function authenticate(secret: SessionKeys, ends?: SessionEnds): RequestHandler {
  return async (req, _res, next) => {
    req.user = (await liveSessionFrom(req, secret, ends)) ?? undefined;
    next();
  };
}

export function currentUser(req: Request): SessionUser {
  if (!req.user) throw unauthorized();
  return req.user;
}

export const requireUser: RequestHandler = (req: Request, _res: Response, next: NextFunction) => {
  currentUser(req);
  next();
};

export const requireAdmin: RequestHandler = (req: Request, _res: Response, next: NextFunction) => {
  if (currentUser(req).role !== 'admin') throw forbidden();
  next();
};

/** Admins may act on anyone; a user only on their own id. */
export function assertSelfOrAdmin(req: Request, userId: string, message?: string): SessionUser {
  const user = currentUser(req);
  if (user.role !== 'admin' && user.id !== userId) throw forbidden(message);
  return user;
}
