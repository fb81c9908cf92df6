import http, { type IncomingMessage } from 'node:http';
import {
  IDLE_CONNECTION_MS,
  refused,
  requestLogger,
  requestSlot,
  type Instances,
  type Logger,
} from '@raseed/kit';
import type { Request, RequestHandler } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import getRawBody from 'raw-body';
import { answer } from './answer';
import { pathOf } from './paths';
import { serviceFor, type ServiceName } from './routes';

/** Above every body a service takes (a 3 MB picture with its form), so each service gives its own answer first. */
export const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/** Where one request has been sent so far. */
interface Attempts {
  service: ServiceName;
  tried: string[];
  next: () => void;
}

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * A request goes to another instance only when the first cannot have acted on it: the
 * connection was refused, it changes nothing (GET, HEAD), or it carries an Idempotency-Key
 * (the service answers a repeat with the first outcome).
 */
const mayRetry = (err: unknown, req: IncomingMessage) =>
  refused(err) ||
  req.method === 'GET' ||
  req.method === 'HEAD' ||
  req.headers['idempotency-key'] !== undefined;

/**
 * Proxies each service path to an instance of its service, in turn among the healthy ones
 * (see Instances). The body is read whole first (at most BODY_LIMIT_BYTES) so a request can
 * be sent again to another instance when the first one died (see mayRetry).
 */
export function serviceProxy(instances: Record<ServiceName, Instances>, logger: Logger): RequestHandler {
  // An idle connection is dropped here before the service would close it (IDLE_CONNECTION_MS).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: IDLE_CONNECTION_MS });
  const attempts = requestSlot<Attempts>('attempts');

  const proxy = createProxyMiddleware({
    router: (req) => {
      const at = attempts.get(req)!;
      const url = instances[at.service].pick(at.tried);
      at.tried.push(url);
      return url;
    },
    agent,
    // The default plugins less the logger, which built a URL for every answer (walking the
    // agent's sockets) to log through a logger that prints nothing; errors are logged below.
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    xfwd: true,
    proxyTimeout: 30_000,
    on: {
      proxyReq: (proxyReq, req) => {
        // With spans recorded, the patched HTTP client sends the trace; else the request's own
        // `traceparent` goes on with its headers (see requestTrace).
        const body = (req as Request).body as unknown;
        if (Buffer.isBuffer(body) && body.length) proxyReq.write(body);
      },
      error: (err, req, res) => {
        const at = attempts.get(req);
        const url = at?.tried.at(-1);
        if (at && url && refused(err)) instances[at.service].failed(url);
        const sent = !('writeHead' in res) || res.headersSent;
        if (at && !sent && at.tried.length < instances[at.service].all.length && mayRetry(err, req)) {
          requestLogger(req, logger).warn(
            { err, service: at.service, instance: url },
            'instance unreachable; trying another',
          );
          void proxy(req as Request, res as http.ServerResponse, at.next);
          return;
        }
        requestLogger(req, logger).warn({ err, service: at?.service, instance: url }, 'service unreachable');
        if (!sent) {
          answer(res as http.ServerResponse, 502, {
            error: 'The service is unavailable. Please try again later.',
          });
        }
      },
    },
  });

  return (req, res, next) => {
    // Only paths a service owns are proxied, read as onePath made sure they read.
    const service = serviceFor(pathOf(req));
    if (!service) return next();
    attempts.set(req, { service, tried: [], next });
    if (!hasBody(req)) return void proxy(req, res, next);
    getRawBody(req, { limit: BODY_LIMIT_BYTES, length: req.headers['content-length'] }).then(
      (body) => {
        req.body = body;
        void proxy(req, res, next);
      },
      (err: { status?: number; type?: string }) => {
        const tooLarge = err.type === 'entity.too.large';
        answer(res, tooLarge ? 413 : (err.status ?? 400), {
          error: tooLarge ? 'The request is too large.' : 'The request body could not be read.',
        });
      },
    );
  };
}
