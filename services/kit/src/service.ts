import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Express, Router } from 'express';
import type IORedis from 'ioredis';
import type { Kafka } from 'kafkajs';
import type { Connection } from 'mongoose';
import { openApiDocument } from './api';
import { createApp, type ReadinessCheck } from './app';
import { within } from './deadline';
import { sessionKeys } from './auth';
import { startConsumer, type EventHandlers } from './consumer';
import type { BaseConfig } from './config';
import { createKafka } from './kafka';
import { DocumentLocks } from './locks';
import { createLogger, type Logger } from './logger';
import { Metrics } from './metrics';
import { connectMongo } from './mongo';
import { Outbox, OutboxRelay } from './outbox';
import { redisConnection } from './queue';
import { SessionEnds } from './sessions';
import { startTracing } from './tracing';

/** How long a stopping service waits for each of its parts (a worker's running job, a consumer) to close. */
const CLOSE_WITHIN_MS = 10_000;

export interface ServiceConfig extends BaseConfig {
  PORT: number;
  MONGO_DB: string;
}

/** The connections a service's parts are built from. */
export interface ServiceContext<C extends ServiceConfig = ServiceConfig> {
  name: string;
  config: C;
  logger: Logger;
  mongo: Connection;
  redis: IORedis;
  kafka: Kafka;
  /** One writer at a time per document (see DocumentLocks): an optimisation, never what decides. */
  locks: DocumentLocks;
  /** Where events are recorded for the relay (see carriesEvents). */
  outbox: Outbox;
  /** Sessions ended by logout, a password reset or a deletion; every service learns them from auth's events. */
  sessions: SessionEnds;
  /** The process's Prometheus metrics (/metrics): a service adds its queues and business figures. */
  metrics: Metrics;
  /** Registers work to close on stop; closed in reverse order after HTTP has drained. */
  onStop(close: () => Promise<unknown>): void;
  /** Runs the service's event handlers in its consumer group until stop (see startConsumer). */
  consume(handlers: EventHandlers): Promise<void>;
}

export interface ServiceParts {
  routes: Router;
  /** The routes' OpenAPI descriptions (ApiRoutes.registry), served at /openapi.json. */
  docs?: OpenAPIRegistry[];
  readiness?: Record<string, ReadinessCheck>;
}

export interface RunningService {
  app: Express;
  server: Server;
  url: string;
  context: ServiceContext;
  relay: OutboxRelay;
  stop(): Promise<void>;
}

/** How long a caller may keep an idle connection to a service for reuse. */
export const IDLE_CONNECTION_MS = 60_000;

/** Connects to the infrastructure, builds the service's parts, and starts HTTP and the outbox relay. */

export async function startService<C extends ServiceConfig>(
  name: string,
  config: C,
  build: (ctx: ServiceContext<C>) => Promise<ServiceParts>,
): Promise<RunningService> {
  const logger = createLogger(name, config.LOG_LEVEL);
  const closers: (() => Promise<unknown>)[] = [startTracing(name)];
  const mongo = await connectMongo(config.MONGO_URL, config.MONGO_DB);
  closers.push(() => mongo.close());
  const redis = redisConnection(config.REDIS_URL);
  closers.push(() => redis.quit());
  const kafka = createKafka(name, config.KAFKA_BROKERS, logger);
  const locks = new DocumentLocks(redis);
  const outbox = new Outbox(mongo);
  const sessions = new SessionEnds(redis, config.JWT_TTL_SECONDS, logger.child({ component: 'sessions' }));
  const metrics = new Metrics(name);
  metrics.watchOutbox(outbox);
  const relay = new OutboxRelay(
    kafka,
    outbox,
    logger.child({ component: 'outbox' }),
    {
      pollMs: config.OUTBOX_POLL_MS,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      partitions: config.KAFKA_PARTITIONS,
    },
    redis,
  );
  const ctx: ServiceContext<C> = {
    name,
    config,
    logger,
    mongo,
    redis,
    kafka,
    locks,
    outbox,
    sessions,
    metrics,
    onStop: (c) => closers.push(c),
    consume: async (handlers) => {
      const groupId = config.KAFKA_GROUP ?? name;
      // Every service applies the session ends auth announces (see SessionEnds).
      const all: EventHandlers = { 'user.sessions-ended': (event) => sessions.learn(event), ...handlers };
      metrics.watchConsumerLag(
        kafka,
        groupId,
        Object.keys(all).map((type) => config.KAFKA_TOPIC_PREFIX + type),
      );
      const stop = await startConsumer({
        kafka,
        groupId,
        mongo,
        logger: logger.child({ component: 'consumer' }),
        handlers: all,
        fromBeginning: config.KAFKA_FROM_BEGINNING,
        topicPrefix: config.KAFKA_TOPIC_PREFIX,
        partitions: config.KAFKA_PARTITIONS,
      });
      closers.push(stop);
    },
  };

  const parts = await build(ctx);
  relay.start();
  closers.push(() => relay.stop());

  const app = createApp({
    logger,
    jwtSecret: sessionKeys(config),
    routes: parts.routes,
    openapi: parts.docs && openApiDocument(name, parts.docs),
    sessions,
    metrics,
    readiness: {
      // Asked, not taken from the connection's state: a client can call itself connected while
      // it cannot reach the store (after the store restarted, say).
      mongo: async () => (await mongo.db?.command({ ping: 1 }))?.ok === 1,
      redis: async () => (await redis.ping()) === 'PONG',
      ...parts.readiness,
    },
  });
  const server = app.listen(config.PORT, config.HOST);
  // The gateway reuses idle connections for up to IDLE_CONNECTION_MS; the service keeps them
  // open longer, so it never closes one just as the gateway sends a request on it (a 502).
  server.keepAliveTimeout = IDLE_CONNECTION_MS + 5_000;
  server.headersTimeout = IDLE_CONNECTION_MS + 6_000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port }, `${name} listening`);

  let stopping: Promise<void> | undefined;
  // While stopping, a kept-alive connection is closed as soon as its last answer is sent.
  server.on('request', (_req, res: ServerResponse) => {
    res.once('finish', () => {
      if (stopping) setImmediate(() => server.closeIdleConnections());
    });
  });
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish, then close what they used.
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 10_000).unref();
      });
      for (const close of closers.reverse()) {
        // A part that cannot close (a Redis client caught reconnecting, say) is left behind after
        // a while: the stop goes on, as a crash would have, and what it held is retried elsewhere.
        const outcome = await within(CLOSE_WITHIN_MS, close(), 'late' as const).catch((err: unknown) => {
          logger.warn({ err }, 'error while closing');
        });
        if (outcome === 'late')
          logger.warn(`a part did not close within ${CLOSE_WITHIN_MS} ms; stopping without it`);
      }
    })());

  return {
    app,
    server,
    url: `http://127.0.0.1:${port}`,
    context: ctx as unknown as ServiceContext,
    relay,
    stop,
  };
}

/** The entry point of a service process: starts it and stops it gracefully on SIGTERM or SIGINT. */
export function runMain(start: () => Promise<RunningService>): void {
  start().then(
    (service) => {
      const shutdown = (signal: string) => {
        service.context.logger.info({ signal }, 'shutting down');
        service.stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
