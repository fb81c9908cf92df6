import type { StartedTestContainer } from 'testcontainers';
import { DEV_SECRETS } from '../../services/kit/src/config';

/**
 * Where a test run's MongoDB, Kafka, Redis, MinIO and mail catcher come from: containers
 * started by testcontainers, or the local processes of infra/infra.sh. RASEED_TEST_INFRA
 * decides: `local`, `containers`, or `auto` (the default: containers when a Docker engine
 * answers, else local).
 */
export type Infrastructure = 'local' | 'containers';

export interface Choice {
  infrastructure: Infrastructure;
  /** Said in the run's output, so nobody has to guess what the tests ran against. */
  why: string;
}

const SETTINGS = ['local', 'containers', 'auto'] as const;
const FAULT_TESTS =
  'the run may include fault tests, which stop and start local servers through infra/infra.sh';

/**
 * Picks the infrastructure for a run. `dockerAnswers` resolves when a Docker engine answers
 * and rejects saying why not; it is only asked when the choice depends on it.
 */
export async function chooseInfrastructure(
  setting: string | undefined,
  faultTests: boolean,
  dockerAnswers: () => Promise<void>,
): Promise<Choice> {
  const mode = setting || 'auto';
  if (!(SETTINGS as readonly string[]).includes(mode)) {
    throw new Error(`RASEED_TEST_INFRA must be local, containers or auto (it is "${mode}")`);
  }
  if (mode === 'local') return { infrastructure: 'local', why: 'RASEED_TEST_INFRA=local' };
  if (faultTests) {
    if (mode === 'auto') return { infrastructure: 'local', why: FAULT_TESTS };
    throw new Error(
      `RASEED_TEST_INFRA=containers, but ${FAULT_TESTS}. ` +
        'Leave them out (--selectProjects main browser) or run them with RASEED_TEST_INFRA=local.',
    );
  }
  const silence = await dockerAnswers().then(
    () => null,
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  if (silence === null) return { infrastructure: 'containers', why: 'a Docker engine answers' };
  if (mode === 'auto') return { infrastructure: 'local', why: `no Docker engine answers: ${silence}` };
  throw new Error(
    `RASEED_TEST_INFRA=containers, but no Docker engine answers: ${silence}. ` +
      'Start one (or point DOCKER_HOST at one), or use RASEED_TEST_INFRA=local.',
  );
}

/**
 * Resolves when a Docker engine answers. testcontainers looks at DOCKER_HOST,
 * ~/.testcontainers.properties and the usual sockets (rootless ones too) and fails at once
 * when there is none; the timeout covers an engine that never answers, such as a DOCKER_HOST
 * on an unreachable machine.
 */
export async function dockerAnswers(
  timeoutMs = 10_000,
  connect: () => Promise<unknown> = async () => (await import('testcontainers')).getContainerRuntimeClient(),
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs).unref();
  });
  try {
    await Promise.race([connect(), silence]);
  } finally {
    clearTimeout(timer);
  }
}

/** What jest tells a global setup about the run (a part of its GlobalConfig). */
export interface RunArguments {
  runTestsByPath: boolean;
  nonFlagArgs: string[];
}

/**
 * Whether a run may include the fault project's tests. Jest tells a global setup neither the
 * projects selected nor the tests found, so this reads its command line: the fault project
 * is out when --selectProjects leaves it out or --ignoreProjects names it, and its tests
 * are out when --runTestsByPath names none of them.
 */
export function faultTestsMayRun(argv: readonly string[], run: RunArguments): boolean {
  const selected = listOption(argv, 'selectProjects', 'select-projects');
  if (selected && !selected.includes('fault')) return false;
  if (listOption(argv, 'ignoreProjects', 'ignore-projects')?.includes('fault')) return false;
  if (run.runTestsByPath && run.nonFlagArgs.length > 0) {
    return run.nonFlagArgs.some((file) => file.endsWith('.fault.test.ts'));
  }
  return true;
}

/** The values of a list option, as jest's argument parser takes them: `--name a b` or `--name=a`. */
function listOption(argv: readonly string[], ...names: string[]): string[] | undefined {
  let values: string[] | undefined;
  argv.forEach((arg, i) => {
    const equals = arg.indexOf('=');
    const name = equals < 0 ? arg : arg.slice(0, equals);
    if (!names.some((n) => name === `--${n}`)) return;
    values ??= [];
    if (equals >= 0) {
      values.push(arg.slice(equals + 1));
    } else {
      const rest = argv.slice(i + 1);
      const end = rest.findIndex((next) => next.startsWith('-'));
      values.push(...(end < 0 ? rest : rest.slice(0, end)));
    }
  });
  return values;
}

/** The images started, the same versions as docker-compose.yml's where the module allows. */
const IMAGES = {
  mongo: 'mongo:7',
  // The Kafka module drives Confluent's image (its start script); 7.9 is Apache Kafka 3.9, as compose's.
  kafka: 'confluentinc/cp-kafka:7.9.1',
  redis: 'redis:7-alpine',
  minio: 'minio/minio:RELEASE.2025-04-22T22-12-26Z',
  mail: 'maildev/maildev:2.2.1',
} as const;

/** The ports inside the containers; Docker publishes each on a free port of its host. */
const PORTS = {
  mongo: 27017,
  // The Kafka module's listener for clients outside Docker (it advertises the published port).
  kafka: 9093,
  redis: 6379,
  minio: 9000,
  smtp: 1025,
  mailApi: 1080,
} as const;

/** A started container, as far as reaching it goes. */
export interface Published {
  getHost(): string;
  getMappedPort(port: number): number;
}

export interface StartedServers {
  mongo: Published;
  kafka: Published;
  redis: Published;
  minio: Published;
  mail: Published;
}

const address = (server: Published, port: number) => `${server.getHost()}:${server.getMappedPort(port)}`;

/**
 * The environment contract (services/kit/src/config.ts) for started containers: jest's
 * workers, the services the tests start in-process and the ones they spawn all read it.
 */
export function containerEnvironment(servers: StartedServers): Record<string, string> {
  const redis = `redis://${address(servers.redis, PORTS.redis)}`;
  return {
    // The module's MongoDB is a one-member replica set that names itself by the container's
    // hostname, which the host cannot resolve: the driver talks to the server it was given.
    MONGO_URL: `mongodb://${address(servers.mongo, PORTS.mongo)}/?directConnection=true`,
    KAFKA_BROKERS: address(servers.kafka, PORTS.kafka),
    REDIS_URL: redis,
    // The catalogue's page cache: a Redis database of its own, as its default on the local Redis.
    CACHE_REDIS_URL: `${redis}/1`,
    S3_ENDPOINT: `http://${address(servers.minio, PORTS.minio)}`,
    S3_ACCESS_KEY: DEV_SECRETS.S3_ACCESS_KEY,
    S3_SECRET_KEY: DEV_SECRETS.S3_SECRET_KEY,
    S3_BUCKET: 'raseed',
    SMTP_URL: `smtp://${address(servers.mail, PORTS.smtp)}`,
    MAIL_API: `http://${address(servers.mail, PORTS.mailApi)}`,
  };
}

export interface RunningContainers {
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts the five containers at once and answers their environment. Nothing is created in
 * them: the services make their bucket, topics and indexes at start, as they do locally.
 */
export async function startContainers(): Promise<RunningContainers> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const { RedisContainer } = await import('@testcontainers/redis');
  const { MinioContainer } = await import('@testcontainers/minio');

  const starting = [
    new MongoDBContainer(IMAGES.mongo).start(),
    new KafkaContainer(IMAGES.kafka)
      .withKraft()
      // As the local broker (infra/kafka/server.properties).
      .withEnvironment({ KAFKA_NUM_PARTITIONS: '3', KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1' })
      .start(),
    new RedisContainer(IMAGES.redis).start(),
    new MinioContainer(IMAGES.minio)
      .withUsername(DEV_SECRETS.S3_ACCESS_KEY)
      .withPassword(DEV_SECRETS.S3_SECRET_KEY)
      .start(),
    new GenericContainer(IMAGES.mail)
      .withExposedPorts(PORTS.smtp, PORTS.mailApi)
      .withWaitStrategy(Wait.forHttp('/healthz', PORTS.mailApi))
      .start(),
  ] as const;
  // Every start settles before a failure is thrown, so the containers that did start are stopped.
  const settled = await Promise.allSettled(starting);
  const started: StartedTestContainer[] = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = async () => {
    await Promise.all(started.map((container) => container.stop()));
  };
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const [mongo, kafka, redis, minio, mail] = await Promise.all(starting);
  return { env: containerEnvironment({ mongo, kafka, redis, minio, mail }), stop };
}

const holder = globalThis as { raseedTestContainers?: RunningContainers };

/** Jest runs the global setup and teardown in one process; the started containers pass between them here. */
export function holdContainers(running: RunningContainers): void {
  holder.raseedTestContainers = running;
}

export function heldContainers(): RunningContainers | undefined {
  return holder.raseedTestContainers;
}
