import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from './logger';
import { requestTrace } from './tracing';

const REQUEST_ID = /^[\w-]{8,128}$/;
// A password-reset link's token is a credential: it never reaches a log line.
const SECRET_IN_PATH = /(\/reset-password\/)[^/?#]+/;

/** The request's URL as logged: a reset token in the path is masked. */
export const loggedUrl = (url: string) => url.replace(SECRET_IN_PATH, '$1[token]');

/**
 * Puts every request in its trace (see requestTrace) and gives it an id (the caller's, when
 * well-formed, else a new one), kept in the request's own header so a proxy passes it on, and
 * echoed in the answer; then logs each request with both, one line when it completes.
 */
export function requestLogging(logger: Logger): RequestHandler[] {
  const assignId: RequestHandler = (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.headers['x-request-id'] = id;
    res.setHeader('x-request-id', id);
    next();
  };
  const log = pinoHttp({
    logger,
    genReqId: (req) => req.headers['x-request-id'] as string,
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    // These read the request and answer themselves: pino-http's wrapping would first copy each
    // into a full record (headers and all) on every request, only for these to pick three fields.
    wrapSerializers: false,
    serializers: {
      req: (req: { id: unknown; method: string; originalUrl?: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: loggedUrl(req.originalUrl ?? req.url),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
  return [requestTrace(), assignId, log];
}
