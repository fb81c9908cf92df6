import type http from 'node:http';
import { Instances, Metrics, requestLogger, requestLogging, sessionKeys, type Logger } from '@raseed/kit';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import type IORedis from 'ioredis';
import proxyAddr from 'proxy-addr';
import { answer } from './answer';
import { trustProxySetting, type GatewayConfig } from './config';
import { apiDocs } from './docs';
import { addressLimits } from './limits';
import { LIVE_PATH, LiveStreams } from './live';
import { onePath, pathOf } from './paths';
import { serviceProxy } from './proxy';
import { publicReads } from './public-reads';
import { BOARD_PATH, queueBoard } from './queues';
import { routeFor, routingTable, serviceFor, type ServiceName } from './routes';
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

/**
 * The single entry point: the spec's /api and /external calls go to their service, the rest is the
 * storefront. A service's path is handled on Express's router alone, outside Express's application,
 * which gives each request and response its own prototype: that change of prototype made every
 * step of Node's HTTP code after it slower, a third of the gateway's CPU a proxied request (0.25
 * against 0.10 ms with http-proxy-middleware alone, on one of this machine's cores). Both ways
 * start alike: request id, trace and log line, metrics, one reading of the path, security
 * headers, and the refusal of cross-site changes.
 */
export function createGateway(
  config: GatewayConfig,
  redis: IORedis,
  logger: Logger,
  metrics = new Metrics('gateway'),
  live = liveStreams(config, redis, logger, metrics),
): http.RequestListener {
  const instances = serviceInstances(config);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));
  // Express's own reading of TRUST_PROXY, for the client's address outside the application.
  const trust = app.get('trust proxy fn') as Parameters<typeof proxyAddr>[1];

  const first: RequestHandler[] = [
    ...requestLogging(logger),
    // A proxied request is timed under its routing prefix; anything else the gateway answers
    // without a route of its own is the storefront.
    metrics.timing((req) => routeFor(pathOf(req))?.prefix ?? 'storefront'),
    onePath,
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
  ];
  // The spec's client marks every call; a cross-site form post cannot set this header.
  const sameSite: RequestHandler = (req, res, next) => {
    if (STATE_CHANGING.has(req.method) && req.headers['x-requested-with'] !== 'XMLHttpRequest') {
      answer(res, 403, { error: 'Requests must carry the header X-Requested-With: XMLHttpRequest' });
      return;
    }
    next();
  };
  const failed = (err: unknown, req: http.IncomingMessage, res: http.ServerResponse) => {
    requestLogger(req, logger).error({ err }, 'gateway error');
    if (!res.headersSent) answer(res, 500, { error: 'Internal server error' });
  };

  const services = express.Router();
  services.use(
    first,
    sameSite,
    addressLimits(redis, config, (req) => proxyAddr(req, trust)),
    publicReads(instances.catalog, config, logger, metrics),
    serviceProxy(instances, logger),
  );

  app.use(first);
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
  app.use(sameSite);
  // Only the stream's own path enters its router: every other request passes it by.
  app.get(LIVE_PATH, live.router());
  // No service path falls to the storefront: an unknown API path, or an internal one, is 404;
  // so is /metrics, served to Prometheus on METRICS_PORT only (main.ts).
  app.use(['/api', '/external', '/internal', '/metrics'], (_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });

  // Last: the built storefront, whose index page answers every other GET.
  app.use(storefront(config.FRONTEND_DIR));
  app.use(((err, req, res, _next) => failed(err, req, res)) as ErrorRequestHandler);

  return (req, res) => {
    if (!serviceFor(pathOf(req))) return void app(req, res);
    services(req as Request, res as Response, (err?: unknown) => {
      if (err) failed(err, req, res);
      // The proxy answers every service path; this is only its safety net.
      else if (!res.headersSent) answer(res, 404, { error: 'Not found' });
    });
  };
}
