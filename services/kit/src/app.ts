import cookieParser from 'cookie-parser';
import express, { type ErrorRequestHandler, type Express, type Router } from 'express';
import helmet from 'helmet';
import mongoose from 'mongoose';
import { authenticate, type SessionKeys } from './auth';
import { within } from './deadline';
import { HttpError } from './errors';
import { requestLogger, requestLogging } from './http-log';
import type { Metrics } from './metrics';
import type { SessionEnds } from './sessions';
import type { Logger } from './logger';

export type ReadinessCheck = () => Promise<boolean>;

/** A readiness check that has not answered within this long counts as down (a probe must not hang). */
const READY_WITHIN_MS = 2_000;

const passes = (check: ReadinessCheck) =>
  within(
    READY_WITHIN_MS,
    check().catch(() => false),
    false,
  );

export interface AppOptions {
  logger: Logger;
  /** The current session secret, and the previous one during a rotation. */
  jwtSecret: SessionKeys;
  routes: Router;
  readiness: Record<string, ReadinessCheck>;
  /** The service's OpenAPI document, for the gateway's /api/docs. */
  openapi?: object;
  /** Sessions ended by logout, a password reset or a deletion (see SessionEnds). */
  sessions?: SessionEnds;
  /** Served at /metrics (the gateway never routes it), and fed every request's timing. */
  metrics?: Metrics;
  bodyLimit?: string;
}

/** The Express app every service shares: security headers, logs, body limits, session, health, errors. */
export function createApp({
  logger,
  jwtSecret,
  routes,
  readiness,
  openapi,
  sessions,
  metrics,
  bodyLimit = '100kb',
}: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback, uniquelocal');
  app.use(helmet());
  app.use(requestLogging(logger));
  if (metrics) {
    app.use(metrics.timing());
    app.get('/metrics', metrics.handler());
  }

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      Object.entries(readiness).map(async ([name, check]) => [name, await passes(check)] as const),
    );
    const ready = results.every(([, ok]) => ok);
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not ready',
      checks: Object.fromEntries(results.map(([name, ok]) => [name, ok ? 'up' : 'down'])),
    });
  });

  if (openapi) {
    app.get('/openapi.json', (_req, res) => {
      res.json(openapi);
    });
  }

  app.use(express.json({ limit: bodyLimit }));
  app.use(cookieParser());
  app.use(authenticate(jwtSecret, sessions));
  app.use(routes);
  app.use((_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });
  app.use(errorMapper(logger));
  return app;
}

function errorMapper(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const { status, body } = toAnswer(err);
    if (status >= 500) requestLogger(req, logger).error({ err }, 'request failed');
    if (res.headersSent) return;
    res.status(status).json(body);
  };
}

function toAnswer(err: unknown): { status: number; body: Record<string, unknown> } {
  if (err instanceof HttpError) return { status: err.status, body: { ...err.fields, error: err.message } };
  if (err instanceof mongoose.Error.CastError || err instanceof mongoose.Error.ValidationError) {
    return { status: 400, body: { error: 'Invalid request' } };
  }
  const e = err as { type?: string; status?: number; statusCode?: number; message?: string };
  // body-parser's errors carry a type and a 4xx status.
  if (e.type === 'entity.parse.failed') return { status: 400, body: { error: 'Malformed JSON body' } };
  if (e.type === 'entity.too.large') return { status: 413, body: { error: 'Request body is too large' } };
  const status = e.status ?? e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, body: { error: e.message ?? 'Bad request' } };
  }
  if (isOutage(err)) return { status: 503, body: { error: UNAVAILABLE } };
  return { status: 500, body: { error: 'Internal server error' } };
}

/** The answer while the document store, Redis or the object store cannot be reached. */
export const UNAVAILABLE = 'The service is temporarily unavailable. Please try again in a moment.';

const { MongoNetworkError, MongoServerSelectionError, MongoNotConnectedError, MongoTopologyClosedError } =
  mongoose.mongo;
// ioredis fails a command this way once Redis is away (see redisConnection) or too slow to answer.
const REDIS_AWAY = /^(Connection is closed|Stream isn't writeable|Command timed out|Reached the max retries)/;
// Mongoose holds commands while the store is away, then fails them this way.
const STORE_AWAY = /buffering timed out after/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/**
 * Whether a request failed because a piece of our infrastructure is away: the caller gets 503
 * and may try again (with its Idempotency-Key), since nothing was decided without it.
 */
export function isOutage(err: unknown): boolean {
  if (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError
  ) {
    return true;
  }
  const e = err as { name?: string; code?: unknown; message?: unknown; errorResponse?: unknown } | null;
  if (!e) return false;
  // An unordered insert (insertNew) cut off by a lost connection wraps the network error.
  if (e.name === 'MongoBulkWriteError' && e.errorResponse instanceof Error) return isOutage(e.errorResponse);
  if (e.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e.message === 'string' && (REDIS_AWAY.test(e.message) || STORE_AWAY.test(e.message)))
    return true;
  return typeof e.code === 'string' && NETWORK_CODES.has(e.code);
}
