import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * docker-compose.yml cannot be started on a machine with no Docker engine, so this checks
 * what can be checked by reading it: the services, their health checks, environment,
 * start order, published ports, volumes and the Dockerfiles they build from.
 */

const ROOT = path.join(__dirname, '..', '..');

type Scalar = string | number | boolean | null;

interface BuildSpec {
  context?: string;
  dockerfile?: string;
  args?: Record<string, Scalar> | string[];
}

interface Healthcheck {
  test?: string | string[];
  disable?: boolean;
}

interface ServiceDef {
  image?: string;
  build?: string | BuildSpec;
  command?: string | string[];
  container_name?: string;
  restart?: string;
  environment?: Record<string, Scalar> | string[];
  ports?: (string | number | { published?: string | number; target?: number })[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: Healthcheck;
  profiles?: string[];
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  deploy?: { replicas?: number; resources?: { limits?: { memory?: string | number } } };
}

interface ComposeFile {
  services: Record<string, ServiceDef>;
  volumes?: Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isComposeFile(doc: unknown): doc is ComposeFile {
  if (!isRecord(doc) || !isRecord(doc.services)) return false;
  if (doc.volumes !== undefined && doc.volumes !== null && !isRecord(doc.volumes)) return false;
  return Object.values(doc.services).every(isRecord);
}

function loadCompose(): ComposeFile {
  // Compose resolves YAML merge keys (<<: *anchor); so does this parse.
  const doc: unknown = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
  if (!isComposeFile(doc)) throw new Error('docker-compose.yml is not a mapping with a services mapping');
  return doc;
}

const compose = loadCompose();

const INFRA = ['mongo', 'kafka', 'redis', 'minio', 'mail'] as const;
const BACKEND = {
  auth: { port: '4001', uses: ['mongo', 'kafka', 'redis', 'mail'] },
  wallet: { port: '4002', uses: ['mongo', 'kafka', 'redis'] },
  catalog: { port: '4003', uses: ['mongo', 'kafka', 'redis', 'minio', 'cache'] },
  orders: { port: '4004', uses: ['mongo', 'kafka', 'redis'] },
  payments: { port: '4005', uses: ['mongo', 'kafka', 'redis', 'minio'] },
} as const;
const BACKEND_NAMES = Object.keys(BACKEND) as (keyof typeof BACKEND)[];
const NODE_APPS = [...BACKEND_NAMES, 'gateway'] as const;
const APPS = [...NODE_APPS, 'frontend'] as const;

/** The environment contract every backend service reads (services/kit/src/config.ts). */
const CONTRACT_VALUES: Record<string, string> = {
  NODE_ENV: 'production',
  // Inside the compose network; a process outside it listens on loopback unless told.
  HOST: '0.0.0.0',
  MONGO_URL: 'mongodb://mongo:27017',
  KAFKA_BROKERS: 'kafka:9092',
  REDIS_URL: 'redis://redis:6379',
  S3_ENDPOINT: 'http://minio:9000',
  S3_BUCKET: 'raseed',
  SMTP_URL: 'smtp://mail:1025',
};
const CONTRACT_KEYS = [
  ...Object.keys(CONTRACT_VALUES),
  'PORT',
  'S3_ACCESS_KEY',
  'S3_SECRET_KEY',
  'MAIL_FROM',
  'SUPPLIER_URL',
  'JWT_SECRET',
  'SERVICE_TOKEN',
  'PUBLIC_URL',
];

function service(name: string): ServiceDef {
  const def = compose.services[name];
  if (!def) throw new Error(`docker-compose.yml has no service "${name}"`);
  return def;
}

function environmentOf(def: ServiceDef): Record<string, string> {
  const env: Record<string, string> = {};
  if (Array.isArray(def.environment)) {
    for (const entry of def.environment) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
  } else if (def.environment) {
    for (const [key, value] of Object.entries(def.environment))
      env[key] = value === null ? '' : String(value);
  }
  return env;
}

/** depends_on as service → condition; the short (list) form means service_started. */
function dependenciesOf(def: ServiceDef): Record<string, string> {
  if (Array.isArray(def.depends_on))
    return Object.fromEntries(def.depends_on.map((d) => [d, 'service_started']));
  return Object.fromEntries(
    Object.entries(def.depends_on ?? {}).map(([name, entry]) => [name, entry.condition ?? 'service_started']),
  );
}

function healthcheckCommand(def: ServiceDef): string {
  const test = def.healthcheck?.test;
  if (def.healthcheck?.disable || test === undefined) return '';
  const parts = typeof test === 'string' ? [test] : test;
  if (parts[0] === 'NONE') return '';
  return parts.filter((p) => p !== 'CMD' && p !== 'CMD-SHELL').join(' ');
}

function buildOf(def: ServiceDef): BuildSpec | undefined {
  return typeof def.build === 'string' ? { context: def.build } : def.build;
}

function buildArgs(build: BuildSpec): Record<string, string> {
  if (Array.isArray(build.args)) {
    return Object.fromEntries(
      build.args.map((a) => [a.split('=')[0] ?? '', a.split('=').slice(1).join('=')]),
    );
  }
  return Object.fromEntries(Object.entries(build.args ?? {}).map(([k, v]) => [k, String(v)]));
}

function dockerfileOf(def: ServiceDef): string {
  const build = buildOf(def);
  if (!build) throw new Error('no build section');
  return path.resolve(ROOT, build.context ?? '.', build.dockerfile ?? 'Dockerfile');
}

function namedVolumesOf(def: ServiceDef): string[] {
  return (def.volumes ?? []).flatMap((v) => {
    if (typeof v === 'string') {
      const source = v.split(':')[0] ?? '';
      // A bind mount starts with a path; a named volume with a name.
      return source && !/^[./~$]/.test(source) && v.includes(':') ? [source] : [];
    }
    return v.type === 'volume' && v.source ? [v.source] : [];
  });
}

/** A published host port written as ${VARIABLE:-default}, so an operator can move it. */
const CONFIGURABLE_PORT = /^(?:\d{1,3}(?:\.\d{1,3}){3}:)?\$\{[A-Z][A-Z0-9_]*:-\d+\}:\d+$/;

describe('docker-compose.yml', () => {
  it('declares the infrastructure and the application services', () => {
    const names = Object.keys(compose.services);
    expect(names).toEqual(expect.arrayContaining([...INFRA, ...APPS]));
  });

  it('gives every service an image or a build, a restart policy and a memory limit', () => {
    for (const [name, def] of Object.entries(compose.services)) {
      expect({ name, hasImageOrBuild: Boolean(def.image || def.build) }).toEqual({
        name,
        hasImageOrBuild: true,
      });
      expect({ name, restart: def.restart }).toEqual({ name, restart: 'unless-stopped' });
      expect({ name, memory: def.deploy?.resources?.limits?.memory }).toEqual({
        name,
        memory: expect.anything(),
      });
    }
  });

  describe('infrastructure', () => {
    it.each(INFRA)('%s runs a pinned image with a health check and a named volume', (name) => {
      const def = service(name);
      expect(def.image).toMatch(/^[\w./-]+:[\w.-]+$/);
      expect(def.image).not.toMatch(/:latest$/);
      expect(healthcheckCommand(def)).not.toBe('');
      const volumes = namedVolumesOf(def);
      expect(volumes).not.toHaveLength(0);
      for (const volume of volumes) expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    });

    it('runs Kafka as one KRaft node whose advertised listener is the address the services use', () => {
      const env = environmentOf(service('kafka'));
      expect(env).toMatchObject({
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_CONTROLLER_QUORUM_VOTERS: '1@kafka:9093',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_NUM_PARTITIONS: '3',
      });
      expect(env.KAFKA_ADVERTISED_LISTENERS).toBe(`PLAINTEXT://${CONTRACT_VALUES.KAFKA_BROKERS}`);
      expect(healthcheckCommand(service('kafka'))).toContain('kafka-broker-api-versions.sh');
    });

    it("keeps the catalog's page cache in a Redis of its own, bounded and evicting the least recently used", () => {
      const command = service('cache').command ?? [];
      const args = typeof command === 'string' ? command.split(/\s+/) : command;
      expect(args[args.indexOf('--maxmemory') + 1]).toBe('64mb');
      expect(args[args.indexOf('--maxmemory-policy') + 1]).toBe('allkeys-lru');
      expect(healthcheckCommand(service('cache'))).toContain('ping');
      expect(environmentOf(service('catalog')).CACHE_REDIS_URL).toBe('redis://cache:6379');
      // orders reads the catalogue's version where catalog keeps it.
      expect(environmentOf(service('orders')).CACHE_REDIS_URL).toBe('redis://cache:6379');
    });

    it('keeps Redis data in an append-only file', () => {
      const command = service('redis').command ?? [];
      const args = typeof command === 'string' ? command.split(/\s+/) : command;
      expect(args).toContain('--appendonly');
      expect(args[args.indexOf('--appendonly') + 1]).toBe('yes');
    });

    it('gives MinIO the same credentials the services sign their S3 requests with', () => {
      const minio = environmentOf(service('minio'));
      const catalog = environmentOf(service('catalog'));
      expect(minio.MINIO_ROOT_USER).toBe(catalog.S3_ACCESS_KEY);
      expect(minio.MINIO_ROOT_PASSWORD).toBe(catalog.S3_SECRET_KEY);
    });
  });

  describe('application services', () => {
    it.each(NODE_APPS)(
      '%s reads the whole environment contract, pointed at the compose hostnames',
      (name) => {
        const env = environmentOf(service(name));
        expect(Object.keys(env)).toEqual(expect.arrayContaining(CONTRACT_KEYS));
        expect(env).toMatchObject(CONTRACT_VALUES);
        // Secrets come from the operator: compose refuses to start without one.
        for (const secret of [
          'JWT_SECRET',
          'SERVICE_TOKEN',
          'S3_ACCESS_KEY',
          'S3_SECRET_KEY',
          'SUPPLIER_TOKEN',
        ])
          expect({ [secret]: env[secret] }).toEqual({
            [secret]: expect.stringMatching(new RegExp(`^\\$\\{${secret}:\\?[^}]+\\}$`)),
          });
        expect(env.SUPPLIER_URL).toBe('${SUPPLIER_URL:-http://supplier.invalid}');
        expect(env.PUBLIC_URL).toBe('${PUBLIC_URL:-http://localhost:8080}');
      },
    );

    it.each(BACKEND_NAMES)('%s listens on its own port', (name) => {
      expect(environmentOf(service(name)).PORT).toBe(BACKEND[name].port);
    });

    it('publishes one entry point to other machines: the gateway (the nginx frontend only with its profile)', () => {
      const published = Object.entries(compose.services)
        // Ports bound to the host's loopback (the mail catcher's web page) are for the operator only.
        .filter(
          ([, def]) =>
            (def.ports ?? []).some((p) => !String(p).startsWith('127.0.0.1:')) &&
            !(def.profiles ?? []).length,
        )
        .map(([name]) => name);
      expect(published).toEqual(['gateway']);
    });

    it('ships an .env.example whose secrets are empty, so compose refuses to start on them', () => {
      const example = Object.fromEntries(
        readFileSync(path.join(ROOT, '.env.example'), 'utf8')
          .split('\n')
          .filter((line) => /^[A-Z0-9_]+=/.test(line))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      const secrets = [
        'JWT_SECRET',
        'SERVICE_TOKEN',
        'ADMIN_EMAIL',
        'ADMIN_PASSWORD',
        'S3_ACCESS_KEY',
        'S3_SECRET_KEY',
        'SUPPLIER_TOKEN',
      ];
      for (const name of secrets) expect({ [name]: example[name] }).toEqual({ [name]: '' });
    });

    it('gives auth the first admin from the operator', () => {
      const env = environmentOf(service('auth'));
      expect(env.ADMIN_EMAIL).toMatch(/^\$\{ADMIN_EMAIL:\?[^}]+\}$/);
      expect(env.ADMIN_PASSWORD).toMatch(/^\$\{ADMIN_PASSWORD:\?[^}]+\}$/);
      expect(env.ADMIN_USERNAME).toBeTruthy();
    });

    it('points the gateway at each service on the port that service listens on', () => {
      const env = environmentOf(service('gateway'));
      expect(env.PORT).toBe('8080');
      expect(env.TRUST_PROXY).toBeTruthy();
      for (const name of BACKEND_NAMES) {
        expect(env[`${name.toUpperCase()}_URL`]).toBe(`http://${name}:${BACKEND[name].port}`);
      }
    });

    it('points each service at the services it calls by name, so every replica of them is found', () => {
      const calls: Record<string, string[]> = {
        wallet: ['payments', 'orders'],
        orders: ['wallet', 'catalog'],
        payments: ['wallet'],
      };
      for (const [caller, callees] of Object.entries(calls)) {
        const env = environmentOf(service(caller));
        for (const callee of callees) {
          const port = BACKEND[callee as keyof typeof BACKEND].port;
          expect({ caller, [callee]: env[`${callee.toUpperCase()}_URL`] }).toEqual({
            caller,
            [callee]: `http://${callee}:${port}`,
          });
        }
      }
    });

    it('runs the nightly reconcile on a schedule the operator may change', () => {
      expect(environmentOf(service('wallet')).RECONCILE_CRON).toBe('${RECONCILE_CRON:-0 3 * * *}');
    });

    it("serves the gateway's metrics on a port of their own inside the compose network", () => {
      const env = environmentOf(service('gateway'));
      expect(env.METRICS_PORT).toBe('9080');
      expect((service('gateway').ports ?? []).map(String).join(' ')).not.toContain(env.METRICS_PORT);
    });

    it.each(APPS)('%s has a health check', (name) => {
      expect(healthcheckCommand(service(name))).toContain('/healthz');
    });

    it.each(NODE_APPS)('%s probes /healthz on the port it listens on', (name) => {
      // The probe reads PORT from the container's environment rather than repeating it.
      expect(healthcheckCommand(service(name))).toContain('process.env.PORT');
    });
  });

  describe('start order', () => {
    it.each(BACKEND_NAMES)('%s waits for the infrastructure it uses to be healthy', (name) => {
      const deps = dependenciesOf(service(name));
      for (const infra of BACKEND[name].uses)
        expect({ [infra]: deps[infra] }).toEqual({ [infra]: 'service_healthy' });
    });

    it('starts the gateway once Redis and all five services are healthy', () => {
      const deps = dependenciesOf(service('gateway'));
      for (const name of ['redis', ...BACKEND_NAMES])
        expect({ [name]: deps[name] }).toEqual({ [name]: 'service_healthy' });
    });

    it('starts the frontend once the gateway is healthy', () => {
      expect(dependenciesOf(service('frontend')).gateway).toBe('service_healthy');
    });

    it('waits only on services that exist and report health', () => {
      for (const [name, def] of Object.entries(compose.services)) {
        for (const [dependency, condition] of Object.entries(dependenciesOf(def))) {
          expect({ name, dependency, condition }).toEqual({ name, dependency, condition: 'service_healthy' });
          expect(healthcheckCommand(service(dependency))).not.toBe('');
        }
      }
    });
  });

  describe('scaling', () => {
    it.each(BACKEND_NAMES)(
      '%s publishes no host port and has no fixed container name, so --scale works',
      (name) => {
        const def = service(name);
        expect(def.ports ?? []).toEqual([]);
        expect(def.container_name).toBeUndefined();
        expect(def.deploy?.replicas ?? 1).toBe(1);
      },
    );

    it('publishes the gateway on a configurable host port, 8080 by default', () => {
      expect(service('gateway').ports).toEqual(['${GATEWAY_PORT:-8080}:8080']);
    });

    it('publishes the browser-facing containers on one configurable host port at most', () => {
      for (const name of ['gateway', 'frontend']) {
        const ports = service(name).ports ?? [];
        expect(ports.length).toBeLessThanOrEqual(1);
        for (const port of ports) expect(String(port)).toMatch(CONFIGURABLE_PORT);
        expect(service(name).container_name).toBeUndefined();
      }
    });
  });

  describe('images', () => {
    const built = Object.entries(compose.services).filter(([, def]) => def.build !== undefined);

    it('builds every application service from the repository', () => {
      expect(built.map(([name]) => name).sort()).toEqual([...APPS, 'supplier-sim'].sort());
    });

    it('builds the supplier simulator with the shared Dockerfile, only on request, with the services’ token', () => {
      const sim = service('supplier-sim');
      const build = buildOf(sim);
      expect(build && buildArgs(build).WORKSPACE).toBe('infra/supplier-sim');
      expect(path.relative(ROOT, dockerfileOf(sim))).toBe('infra/docker/service.Dockerfile');
      expect(sim.profiles).toEqual(['supplier-sim']);
      expect(healthcheckCommand(sim)).toContain('/healthz');
      expect(environmentOf(sim).SUPPLIER_TOKEN).toBe(environmentOf(service('orders')).SUPPLIER_TOKEN);
    });

    it.each(built.map(([name]) => name))(
      '%s builds from a Dockerfile under infra/docker that exists',
      (name) => {
        const dockerfile = dockerfileOf(service(name));
        expect(path.relative(ROOT, dockerfile)).toMatch(/^infra\/docker\/[\w.-]+$/);
        expect(existsSync(dockerfile)).toBe(true);
      },
    );

    it.each(NODE_APPS)(
      '%s builds the workspace of the same name with the shared service Dockerfile',
      (name) => {
        const build = buildOf(service(name));
        if (!build) throw new Error(`${name} has no build`);
        const workspace = buildArgs(build).WORKSPACE ?? '';
        expect(workspace).toBe(name === 'gateway' ? 'gateway' : `services/${name}`);
        const rootPackage: unknown = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
        expect(isRecord(rootPackage) ? rootPackage.workspaces : undefined).toContain(workspace);
        expect(existsSync(path.join(ROOT, workspace, 'tsconfig.json'))).toBe(true);
        expect(path.relative(ROOT, dockerfileOf(service(name)))).toBe('infra/docker/service.Dockerfile');
      },
    );

    it('has a health check in every Dockerfile, so the images are healthy outside compose too', () => {
      for (const [name, def] of built) {
        const dockerfile = readFileSync(dockerfileOf(def), 'utf8');
        expect({ name, healthcheck: /^HEALTHCHECK\s/m.test(dockerfile) }).toEqual({
          name,
          healthcheck: true,
        });
      }
    });

    it('runs the services as a non-root user from their built output', () => {
      const dockerfile = readFileSync(path.join(ROOT, 'infra/docker/service.Dockerfile'), 'utf8');
      expect(dockerfile).toMatch(/^ARG WORKSPACE$/m);
      expect(dockerfile).toMatch(/^RUN npx tsc -b "?\$\{?WORKSPACE\}?"?$/m);
      expect(dockerfile).toMatch(/^RUN npm prune --omit=dev/m);
      expect(dockerfile).toMatch(/^USER node$/m);
      expect(dockerfile).toMatch(/^CMD \["node", "dist\/main\.js"\]$/m);
    });

    it('serves the SPA from nginx and forwards /api/, /external/ and the queue board to the gateway', () => {
      const dockerfile = readFileSync(path.join(ROOT, 'infra/docker/frontend.Dockerfile'), 'utf8');
      expect(dockerfile).toMatch(/^RUN npm run build -w frontend$/m);
      expect(dockerfile).toContain('COPY infra/docker/nginx.conf ');
      const nginx = readFileSync(path.join(ROOT, 'infra/docker/nginx.conf'), 'utf8');
      expect(nginx).toContain(`http://gateway:${environmentOf(service('gateway')).PORT}`);
      expect(nginx).toMatch(/location \^~ \/api\/ \{\s*proxy_pass \$gateway;/);
      expect(nginx).toMatch(/location = \/api\/events \{\s*proxy_pass \$gateway;\s*proxy_buffering off;/);
      expect(nginx).toMatch(/location \^~ \/external\/ \{\s*proxy_pass \$gateway;/);
      expect(nginx).toMatch(/location \^~ \/admin\/queues \{\s*proxy_pass \$gateway;/);
      expect(nginx).toContain('try_files $uri /index.html;');
    });
  });
});
