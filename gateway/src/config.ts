import path from 'node:path';
import { baseEnv, parseEnv, secretOrDevelopment, serviceUrls } from '@raseed/kit';
import { z } from 'zod';

const env = z.object({
  NODE_ENV: baseEnv.shape.NODE_ENV,
  HOST: baseEnv.shape.HOST,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PORT: z.coerce.number().int().min(0).default(8080),
  /** Where Prometheus reads the gateway's /metrics; the public port answers 404 for it. */
  METRICS_PORT: z.coerce.number().int().min(0).default(9080),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  /** The services' events, read for the pages' live streams (live.ts). */
  KAFKA_BROKERS: baseEnv.shape.KAFKA_BROKERS,
  KAFKA_TOPIC_PREFIX: baseEnv.shape.KAFKA_TOPIC_PREFIX,
  KAFKA_PARTITIONS: baseEnv.shape.KAFKA_PARTITIONS,
  /** Live streams (GET /api/events) one user may have open on one instance, and all of them. */
  LIVE_STREAMS_PER_USER: z.coerce.number().int().positive().default(10),
  LIVE_STREAMS_MAX: z.coerce.number().int().positive().default(20_000),
  AUTH_URL: serviceUrls('http://127.0.0.1:4001'),
  WALLET_URL: serviceUrls('http://127.0.0.1:4002'),
  CATALOG_URL: serviceUrls('http://127.0.0.1:4003'),
  ORDERS_URL: serviceUrls('http://127.0.0.1:4004'),
  PAYMENTS_URL: serviceUrls('http://127.0.0.1:4005'),
  FRONTEND_DIR: z.string().default(path.resolve(__dirname, '../../frontend/dist')),
  /**
   * Where product pictures may come from besides this site (the CSP's img-src): the
   * supplier's image host. Locally the simulator; space-separated origins.
   */
  IMAGE_ORIGINS: z.string().default('http://127.0.0.1:4100'),
  /** Express "trust proxy": which hops may set X-Forwarded-For. None by default, so clients cannot choose their address. */
  TRUST_PROXY: z.string().default('false'),
  /** Sign-ups, password-reset requests and contact messages one address may send per window. */
  AUTH_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  /**
   * Failed sign-ins one address may make per window, across accounts: well above auth's
   * per-account limit (SIGNIN_ACCOUNT_FAILURES), as a carrier's address may be shared by many.
   */
  SIGNIN_ADDRESS_FAILURES: z.coerce.number().int().positive().default(50),
  AUTH_RATE_WINDOW_SECONDS: baseEnv.shape.AUTH_RATE_WINDOW_SECONDS,
  /** The services' session secret: the queue board (/admin/queues) verifies the session itself. */
  JWT_SECRET: baseEnv.shape.JWT_SECRET,
  JWT_PREVIOUS_SECRET: baseEnv.shape.JWT_PREVIOUS_SECRET,
  /** How long a session lasts (auth signs them): a session end is kept that long. */
  JWT_TTL_SECONDS: baseEnv.shape.JWT_TTL_SECONDS,
  /** The services' BullMQ prefix, so the queue board opens the queues they work. */
  QUEUE_PREFIX: baseEnv.shape.QUEUE_PREFIX,
  /**
   * How long the gateway keeps a visitor's catalogue read (public-reads.ts); an admin's change
   * shows within this long. 0 turns the cache off.
   */
  PUBLIC_CACHE_MS: z.coerce.number().int().min(0).default(2000),
  /** The most catalogue reads kept, and the most bytes they take with their compressed copies. */
  PUBLIC_CACHE_MAX_ENTRIES: z.coerce.number().int().positive().default(500),
  PUBLIC_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
});

export type GatewayConfig = Omit<z.infer<typeof env>, 'JWT_SECRET'> & { JWT_SECRET: string };

export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const config = parseEnv(env, source);
  // The services' rule: the development secret locally, a real one required in production.
  return { ...config, JWT_SECRET: secretOrDevelopment('JWT_SECRET', config.JWT_SECRET, config.NODE_ENV) };
}

export function trustProxySetting(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return /^\d+$/.test(value) ? Number(value) : value;
}
