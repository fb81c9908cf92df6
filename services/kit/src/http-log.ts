import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from './logger';
import { requestSpan, requestTrace } from './tracing';

const REQUEST_ID = /^[\w-]{8,128}$/;
// A password-reset link's token is a credential: it never reaches a log line.
const SECRET_IN_PATH = /(\/reset-password\/)[^/?#]+/;

/** The request's URL as logged: a reset token in the path is masked. */
export const loggedUrl = (url: string) => url.replace(SECRET_IN_PATH, '$1[token]');

const withSpan = (req: IncomingMessage, line: object) => {
  const span = requestSpan(req as Request);
  return span ? { ...line, ...span } : line;
};

/** What a request's log lines say of it. */
const loggedRequest = (req: { id: unknown; method?: string; originalUrl?: string; url?: string }) => ({
  id: req.id,
  method: req.method,
  url: loggedUrl(req.originalUrl ?? req.url ?? ''),
});

/**
 * The logger for a line about a request: its own (its lines name the request and its trace),
 * given by requestLogging's request lines, or made here when a process keeps no such lines.
 */
export function requestLogger(req: IncomingMessage, logger: Logger): Logger {
  const id = req.headers['x-request-id'];
  const own =
    (req.log as Logger | undefined) ??
    (id
      ? logger.child({
          req: loggedRequest({
            id,
            method: req.method,
            url: req.url,
            originalUrl: (req as Request).originalUrl,
          }),
        })
      : logger);
  const span = requestSpan(req as Request);
  return span ? own.child(span) : own;
}

/**
 * Puts every request in its trace (see requestTrace) and gives it an id (the caller's, when
 * well-formed, else a new one), kept in the request's own header so a proxy passes it on, and
 * echoed in the answer; then logs each request with both, one line when it completes. A logger
 * above `info` writes no such line, so none is prepared: pino-http's logger of each request
 * (a child whose bindings are serialized at once) was a fifth of the gateway's CPU a request.
 */
export function requestLogging(logger: Logger): RequestHandler[] {
  const assignId: RequestHandler = (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.headers['x-request-id'] = id;
    res.setHeader('x-request-id', id);
    next();
  };
  if (!logger.isLevelEnabled('info')) return [requestTrace(), assignId];
  const log = pinoHttp({
    logger,
    genReqId: (req) => req.headers['x-request-id'] as string,
    // A request that carries its trace itself names it in its line (elsewhere the logger's mixin
    // does), without a logger of its own: a child logger costs more than the rest of the line.
    customSuccessObject: (req, _res, line) => withSpan(req, line),
    customErrorObject: (req, _res, _err, line) => withSpan(req, line),
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    // These read the request and answer themselves: pino-http's wrapping would first copy each
    // into a full record (headers and all) on every request, only for these to pick three fields.
    wrapSerializers: false,
    serializers: {
      req: loggedRequest,
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
  return [requestTrace(), assignId, log];
}
