import { Instances, Metrics, requestLogger, requestLogging, sessionKeys, type Logger } from '@raseed/kit';
import express, { type ErrorRequestHandler, type Express } from 'express';
import helmet from 'helmet';
import type IORedis from 'ioredis';
import { trustProxySetting, type GatewayConfig } from './config';
import { apiDocs } from './docs';
import { addressLimits } from './limits';
import { LIVE_PATH, LiveStreams } from './live';
import { onePath } from './paths';
import { serviceProxy } from './proxy';
import { publicReads } from './public-reads';
import { BOARD_PATH, queueBoard } from './queues';
import { routeFor, routingTable, type ServiceName } from './routes';
import { storefront } from './storefront';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Each service's instances, as configured (one URL, several, or a name standing for several). */
export function serviceInstances(config: GatewayConfig): Record<ServiceName, Instances> {
  const urls: Record<ServiceName, string[]> = {
    auth: config.AUTH_URL,
    wallet: config.WALLET_URL,
    catalog: config.CATALOG_URL,
    orders: config.ORDERS_URL,
    payments: config.PAYMENTS_URL,
  };
  return Object.fromEntries(
    Object.entries(urls).map(([name, list]) => [name, new Instances(name, list).start()]),
  ) as Record<ServiceName, Instances>;
}

/** The live streams of one gateway instance, fed by startLiveFeed. */
export function liveStreams(
  config: GatewayConfig,
  redis: IORedis,
  logger: Logger,
  metrics?: Metrics,
): LiveStreams {
  return new LiveStreams(
    sessionKeys(config),
    redis,
    {
      ttlSeconds: config.JWT_TTL_SECONDS,
      perUser: config.LIVE_STREAMS_PER_USER,
      max: config.LIVE_STREAMS_MAX,
    },
    logger,
    metrics,
  );
}

/** The single entry point: the spec's /api and /external calls go to their service, the rest is the storefront. */
export function createGateway(
  config: GatewayConfig,
  redis: IORedis,
  logger: Logger,
  metrics = new Metrics('gateway'),
  live = liveStreams(config, redis, logger, metrics),
): Express {
  const instances = serviceInstances(config);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));

  app.use(requestLogging(logger));
  // A proxied request is timed under its routing prefix; anything else the gateway answers
  // without a route of its own is the storefront.
  app.use(metrics.timing((req) => routeFor(req.path)?.prefix ?? 'storefront'));
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

  // Healthy when every service has an instance that answers; how many do is shown per service.
  // The counts are the instances' last health checks (at most 2 s old), not asked again per request.
  app.get('/healthz', async (_req, res) => {
    const checks = await Promise.all(
      (Object.keys(routingTable) as ServiceName[]).map(
        async (name) => [name, await instances[name].health()] as const,
      ),
    );
    const healthy = checks.every(([, { up }]) => up > 0);
    res.status(healthy ? 200 : 503).json({
      status: healthy ? 'ok' : 'degraded',
      services: Object.fromEntries(checks.map(([name, { up }]) => [name, up ? 'up' : 'down'])),
      instances: Object.fromEntries(checks.map(([name, { up, total }]) => [name, `${up}/${total}`])),
    });
  });

  // Answered here, not by a service: no service owns /api/docs (see routes.ts).
  app.use('/api/docs', apiDocs(instances, logger));
  // Ahead of the X-Requested-With check (the board guards its own changes) and the storefront.
  app.use(
    BOARD_PATH,
    queueBoard(
      redis,
      {
        jwtSecret: sessionKeys(config),
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
  // Only the stream's own path enters its router: every other request passes it by.
  app.get(LIVE_PATH, live.router());

  // Behind the request ids, metrics, logs and security headers above, which cached answers get too.
  app.use(publicReads(instances.catalog, config, logger, metrics));
  app.use(serviceProxy(instances, logger));
  // No service path falls to the storefront: an unknown API path, or an internal one, is 404;
  // so is /metrics, served to Prometheus on METRICS_PORT only (main.ts).
  app.use(['/api', '/external', '/internal', '/metrics'], (_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });

  // Last: the built storefront, whose index page answers every other GET.
  app.use(storefront(config.FRONTEND_DIR));
  app.use(((err, req, res, _next) => {
    requestLogger(req, logger).error({ err }, 'gateway error');
    if (!res.headersSent) res.status(500).json({ error: 'Internal server error' });
  }) as ErrorRequestHandler);
  return app;
}
