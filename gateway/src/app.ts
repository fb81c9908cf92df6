import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { IDLE_CONNECTION_MS, requestLogging, type Logger } from '@raseed/kit';
import express, { type ErrorRequestHandler, type Express } from 'express';
import helmet from 'helmet';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type IORedis from 'ioredis';
import { trustProxySetting, type GatewayConfig } from './config';
import { apiDocs } from './docs';
import { addressLimits } from './limits';
import { onePath } from './paths';
import { BOARD_PATH, queueBoard } from './queues';
import { routingTable, serviceFor, type ServiceName } from './routes';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function serviceTargets(config: GatewayConfig): Record<ServiceName, string> {
  return {
    auth: config.AUTH_URL,
    wallet: config.WALLET_URL,
    catalog: config.CATALOG_URL,
    orders: config.ORDERS_URL,
    payments: config.PAYMENTS_URL,
  };
}

/** The single entry point: the spec's /api and /external calls go to their service, the rest is the storefront. */
export function createGateway(config: GatewayConfig, redis: IORedis, logger: Logger): Express {
  const targets = serviceTargets(config);
  // An idle connection is dropped here before the service would close it (IDLE_CONNECTION_MS).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: IDLE_CONNECTION_MS });
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));

  app.use(requestLogging(logger));
  app.use(onePath);
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          'img-src': ["'self'", 'data:', ...config.IMAGE_ORIGINS.split(/\s+/).filter(Boolean)],
          // No site may frame the store (clickjacking); infra/docker/nginx.conf sends the same.
          'frame-ancestors': ["'none'"],
          // Behind TLS the browser upgrades by itself; on plain http this would break every image.
          'upgrade-insecure-requests': null,
        },
      },
      xFrameOptions: { action: 'deny' },
    }),
  );

  app.get('/healthz', async (_req, res) => {
    const checks = await Promise.all(
      (Object.keys(routingTable) as ServiceName[]).map(async (name) => {
        const up = await fetch(`${targets[name]}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.ok,
          () => false,
        );
        return [name, up ? 'up' : 'down'] as const;
      }),
    );
    const healthy = checks.every(([, state]) => state === 'up');
    res
      .status(healthy ? 200 : 503)
      .json({ status: healthy ? 'ok' : 'degraded', services: Object.fromEntries(checks) });
  });

  // Answered here, not by a service: no service owns /api/docs (see routes.ts).
  app.use('/api/docs', apiDocs(targets, logger));
  // Ahead of the X-Requested-With check (the board guards its own changes) and the storefront.
  app.use(
    BOARD_PATH,
    queueBoard(
      redis,
      {
        jwtSecret: config.JWT_SECRET,
        queuePrefix: config.QUEUE_PREFIX,
        sessionTtlSeconds: config.JWT_TTL_SECONDS,
      },
      logger,
    ),
  );

  // The spec's client marks every call; a cross-site form post cannot set this header.
  app.use((req, res, next) => {
    if (STATE_CHANGING.has(req.method) && req.headers['x-requested-with'] !== 'XMLHttpRequest') {
      res.status(403).json({ error: 'Requests must carry the header X-Requested-With: XMLHttpRequest' });
      return;
    }
    next();
  });
  app.use(addressLimits(redis, config));

  app.use(
    createProxyMiddleware({
      target: targets.auth,
      // Only paths a service owns reach here (pathFilter), read as onePath made sure they read.
      router: (req) => targets[serviceFor((req.url ?? '').split('?')[0]!)!],
      pathFilter: (pathname) => serviceFor(pathname) !== undefined,
      agent,
      xfwd: true,
      proxyTimeout: 30_000,
      on: {
        error: (err, _req, res) => {
          logger.warn({ err }, 'service unreachable');
          if ('writeHead' in res && !res.headersSent) {
            res.writeHead(502, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: 'The service is unavailable. Please try again later.' }));
          }
        },
      },
    }),
  );
  // No service path falls to the storefront: an unknown API path, or an internal one, is 404.
  app.use(['/api', '/external', '/internal'], (_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });

  // The built storefront, with every other GET answered by its index page (client-side routes).
  const index = path.join(config.FRONTEND_DIR, 'index.html');
  app.use(express.static(config.FRONTEND_DIR, { index: false, maxAge: '1h' }));
  app.get('/{*path}', (_req, res) => {
    if (!fs.existsSync(index)) {
      res.status(503).type('text').send('The storefront is not built yet: run `npm run build`.');
      return;
    }
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(index);
  });
  app.use(((err, req, res, _next) => {
    logger.error({ err, requestId: req.headers['x-request-id'] }, 'gateway error');
    if (!res.headersSent) res.status(500).json({ error: 'Internal server error' });
  }) as ErrorRequestHandler);
  return app;
}
