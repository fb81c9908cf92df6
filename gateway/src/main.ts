import type { AddressInfo } from 'node:net';
import { createLogger, redisConnection } from '@raseed/kit';
import { createGateway } from './app';
import { loadGatewayConfig } from './config';

function main(): void {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const redis = redisConnection(config.REDIS_URL);
  const server = createGateway(config, redis, logger).listen(config.PORT, config.HOST, () => {
    logger.info({ port: (server.address() as AddressInfo).port }, 'gateway listening');
  });
  const shutdown = () => {
    server.close(() => {
      redis.quit().finally(() => process.exit(0));
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
