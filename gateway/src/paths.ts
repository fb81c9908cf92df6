import type { RequestHandler } from 'express';

/**
 * Spellings a parser may read as another path: a backslash (read as '/' by some), an encoded
 * slash, backslash, dot or NUL, a dot segment, an empty segment.
 */
const AMBIGUOUS = /\\|%2f|%5c|%2e|%00|\/\/|(^|\/)\.\.?(\/|$)/i;

export const BAD_PATH = 'Bad request path';

/**
 * The path of a request target when it has exactly one reading, else null: an origin-form
 * target ('/…', not 'http://host/…' or '*') whose path nothing above makes ambiguous and
 * which WHATWG URL parsing leaves as it is.
 */
export function canonicalPath(target: string): string | null {
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
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
    res.status(400).json({ error: BAD_PATH });
    return;
  }
  next();
};
