import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { answer } from './answer';

/**
 * Spellings a parser may read as another path: a backslash (read as '/' by some), an encoded
 * slash, backslash, dot or NUL, a dot segment, an empty segment.
 */
const AMBIGUOUS = /\\|%2f|%5c|%2e|%00|\/\/|(^|\/)\.\.?(\/|$)/i;

export const BAD_PATH = 'Bad request path';

/** What a request target names before its query or fragment. */
const pathPart = (target: string) => {
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
};

/**
 * A request's path, as Express reads it (its `req.path`), for the handlers that run without
 * Express's request (see createGateway); onePath has refused any path with two readings.
 */
export const pathOf = (req: IncomingMessage) => pathPart(req.url ?? '/');

/**
 * The path of a request target when it has exactly one reading, else null: an origin-form
 * target ('/…', not 'http://host/…' or '*') whose path nothing above makes ambiguous and
 * which WHATWG URL parsing leaves as it is.
 */
export function canonicalPath(target: string): string | null {
  const path = pathPart(target);
  if (!path.startsWith('/') || AMBIGUOUS.test(path)) return null;
  try {
    return new URL(path, 'http://gateway').pathname === path ? path : null;
  } catch {
    return null;
  }
}

/**
 * One parse of every URL, ahead of everything else at the gateway: the limits, the router and
 * the proxy all read the path Express reads, because a path that could be read two ways is
 * refused with 400 before any of them looks at it.
 */
export const onePath: RequestHandler = (req, res, next) => {
  if (canonicalPath(req.url) === null) {
    answer(res, 400, { error: BAD_PATH });
    return;
  }
  next();
};
