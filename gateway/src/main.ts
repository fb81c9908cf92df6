// Tracing patches HTTP before anything loads it (see instrument).
import './instrument';
import http from 'node:http';
import { createLogger, IDLE_CONNECTION_MS, Metrics, redisConnection, startTracing } from '@raseed/kit';
import express from 'express';
import { createGateway, liveStreams } from './app';
import { loadGatewayConfig } from './config';
import { startLiveFeed } from './live';

function main(): void {
  const config = loadGatewayConfig();
  const flushTraces = startTracing('gateway');
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const redis = redisConnection(config.REDIS_URL);
  const metrics = new Metrics('gateway');
  // A port that cannot be had (taken, not allowed) is the server's error, which Express's
  // listen (the metrics port) hands to its callback.
  const listening = (what: string, variable: string, port: number) => (err?: Error) => {
    if (err) {
      logger.fatal({ err }, `the ${what} port ${port} cannot be used: set ${variable}`);
      process.exit(1);
    }
    logger.info({ port }, `${what} listening`);
  };
  const live = liveStreams(config, redis, logger, metrics);
  const feed = startLiveFeed(config, live, logger);
  const server = http.createServer(createGateway(config, redis, logger, metrics, live));
  server.once('error', listening('gateway', 'PORT', config.PORT));
  server.listen(config.PORT, config.HOST, listening('gateway', 'PORT', config.PORT));
  // Browsers and proxies in front keep idle connections for up to a minute: the gateway keeps
  // them longer, so it never closes one just as a client sends a request on it.
  server.keepAliveTimeout = IDLE_CONNECTION_MS + 5_000;
  server.headersTimeout = IDLE_CONNECTION_MS + 6_000;
  // Prometheus reads the gateway's figures on a port of their own, never the public one.
  const metricsServer = express()
    .get('/metrics', metrics.handler())
    .listen(
      config.METRICS_PORT,
      config.HOST,
      listening('gateway metrics', 'METRICS_PORT', config.METRICS_PORT),
    );
  const shutdown = () => {
    metricsServer.close();
    live.close();
    server.close(() => {
      void Promise.all([feed.stop(), redis.quit(), flushTraces()]).finally(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 10_000).unref();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

try {
  main();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
