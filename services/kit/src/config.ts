import { z } from 'zod';

/** The environment contract shared by every service; defaults match the local infrastructure (infra/). */
export const baseEnv = z.object({
  /**
   * Unset counts as production: the development secrets below apply only when NODE_ENV says
   * development or test (npm start and the tests say so), never by accident on a server.
   */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('production'),
  /** The address to listen on: loopback unless told (compose sets 0.0.0.0 inside its network). */
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MONGO_URL: z.string().url().default('mongodb://127.0.0.1:27017'),
  KAFKA_BROKERS: z
    .string()
    .default('127.0.0.1:9092')
    .transform((s) =>
      s
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean),
    ),
  /** A new consumer group reads each topic from its start (read models are built from history). */
  KAFKA_FROM_BEGINNING: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Prefixed to every topic name: environments that share a broker keep their events apart. */
  KAFKA_TOPIC_PREFIX: z
    .string()
    .regex(/^[\w.-]*$/)
    .default(''),
  /** Partitions of each topic the services create (the most consumers of one group that share its work). */
  KAFKA_PARTITIONS: z.coerce.number().int().min(1).max(100).default(3),
  /** The consumer group of a service's event handlers (default: the service's name). */
  KAFKA_GROUP: z.string().min(1).optional(),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  S3_ENDPOINT: z.string().url().default('http://127.0.0.1:9000'),
  S3_ACCESS_KEY: z.string().min(1).optional(),
  S3_SECRET_KEY: z.string().min(1).optional(),
  S3_BUCKET: z.string().default('raseed'),
  SMTP_URL: z.string().url().default('smtp://127.0.0.1:1025'),
  MAIL_FROM: z.string().default('Raseed <no-reply@raseed.app>'),
  SUPPLIER_URL: z.string().url().default('http://127.0.0.1:4100'),
  SUPPLIER_TOKEN: z.string().min(1).optional(),
  /** How long one call to the supplier may take before it counts as timed out. */
  SUPPLIER_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** BullMQ keys start with this: environments that share a Redis keep their queues apart. */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[\w-]+$/)
    .default('raseed'),
  PUBLIC_URL: z.string().url().default('http://localhost:8080'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  /**
   * The secret sessions were signed with before JWT_SECRET replaced it: still accepted until
   * those sessions expire (JWT_TTL_SECONDS), then removed (OPERATIONS.md).
   */
  JWT_PREVIOUS_SECRET: z.string().min(32, 'JWT_PREVIOUS_SECRET must be at least 32 characters').optional(),
  /** Shared by the services for their internal calls (ARCHITECTURE rule 10). */
  SERVICE_TOKEN: z.string().min(32, 'SERVICE_TOKEN must be at least 32 characters').optional(),
  JWT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(7 * 24 * 3600),
  OUTBOX_POLL_MS: z.coerce.number().int().positive().default(1000),
  /** The window of the sign-in, sign-up, reset and contact limits (gateway and auth). */
  AUTH_RATE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 60),
});

/** What the local infrastructure (infra/) and the supplier simulator use; published, so never used in production. */
export const DEV_SECRETS = {
  JWT_SECRET: 'raseed-local-development-secret-not-for-production',
  SERVICE_TOKEN: 'raseed-local-development-service-token-not-for-production',
  SUPPLIER_TOKEN: 'raseed-local-supplier-token',
  S3_ACCESS_KEY: 'raseed',
  S3_SECRET_KEY: 'raseed-secret',
  ADMIN_PASSWORD: 'raseed-admin-password',
  /** orders: the key its stocks of codes are sealed with. */
  CODES_KEY: 'raseed-local-development-codes-key-not-for-production',
} as const;
/** Secrets one service alone reads, required by it (secretOrDevelopment) rather than by all. */
const OWN_SECRETS = ['ADMIN_PASSWORD', 'CODES_KEY'] as const;
type Secret = Exclude<keyof typeof DEV_SECRETS, (typeof OWN_SECRETS)[number]>;
const SECRETS = Object.keys(DEV_SECRETS).filter(
  (name) => !(OWN_SECRETS as readonly string[]).includes(name),
) as Secret[];

export type BaseConfig = Omit<z.infer<typeof baseEnv>, Secret> & Record<Secret, string>;

/**
 * Reads and validates an environment once at start. A bad value stops the process
 * with one line per problem rather than failing later on first use.
 */
export function parseEnv<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`invalid configuration:\n${lines.join('\n')}`);
}

/** The shared contract plus a service's own variables. */
export function loadConfig<T extends z.ZodRawShape>(
  extra: T,
  env: NodeJS.ProcessEnv = process.env,
): BaseConfig & z.infer<z.ZodObject<T>> {
  const config = parseEnv(baseEnv.extend(extra), env) as z.infer<typeof baseEnv> & z.infer<z.ZodObject<T>>;
  const missing = SECRETS.filter((name) => !config[name] && !isDevelopment(config.NODE_ENV));
  if (missing.length)
    throw new Error(`invalid configuration:\n${missing.map((n) => `  ${n}: required`).join('\n')}`);
  for (const name of SECRETS) config[name] ||= DEV_SECRETS[name];
  return config as BaseConfig & z.infer<z.ZodObject<T>>;
}

export const isDevelopment = (nodeEnv: string) => nodeEnv === 'development' || nodeEnv === 'test';

/** A secret as configured; unset, the development one when NODE_ENV says development or test, else required. */
export function secretOrDevelopment(
  name: keyof typeof DEV_SECRETS,
  value: string | undefined,
  nodeEnv: string,
): string {
  if (value) return value;
  if (!isDevelopment(nodeEnv)) throw new Error(`invalid configuration:\n  ${name}: required`);
  return DEV_SECRETS[name];
}
