import http from 'node:http';
import { createLogger, redisConnection } from '@raseed/kit';
import type IORedis from 'ioredis';
import supertest from 'supertest';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { startTestAuth, type TestAuth } from '../../services/auth/test/support';
import { startTestWallet, type TestWallet } from '../../services/wallet/test/support';
import { listen } from './listen';

/**
 * /api/docs from the browser's side. The real auth and wallet services describe themselves to
 * one gateway; stand-in services (real HTTP servers) play what the real ones cannot be made to
 * do on demand: a component that differs between two services, one with no document yet.
 */
let redis: IORedis;
let gateway: http.Server;
let services: http.Server[] = [];
let authDocumentRequests = 0;
const logger = createLogger('gateway', 'silent');
const warn = jest.spyOn(logger, 'warn');

const errorSchema = { type: 'object', properties: { error: { type: 'string' } } };
const authDocument = {
  openapi: '3.0.3',
  info: { title: 'Raseed auth', version: '1.0.0' },
  paths: {
    '/api/signin': { post: { responses: { '200': { description: 'Signed in' } } } },
    '/internal/users/{id}': { get: { responses: { '200': { description: 'A user' } } } },
  },
  components: {
    schemas: { Error: errorSchema, User: { type: 'object' } },
    securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'token' } },
  },
};
const walletDocument = {
  openapi: '3.0.3',
  info: { title: 'Raseed wallet', version: '1.0.0' },
  paths: { '/api/balance': { get: { responses: { '200': { description: 'The balance' } } } } },
  // Error is the same as auth's; User is not, so auth's is kept.
  components: { schemas: { Error: errorSchema, User: { type: 'string' }, Balance: { type: 'number' } } },
};

/** A real HTTP server standing in for a service: its document at /openapi.json, or 404 without one. */
const startService = async (document?: object, onDocument?: () => void) => {
  const server = http.createServer((req, res) => {
    if (req.url === '/openapi.json' && document) {
      onDocument?.();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(document));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  services.push(server);
  return listen(server);
};

beforeAll(async () => {
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    AUTH_URL: await startService(authDocument, () => authDocumentRequests++),
    WALLET_URL: await startService(walletDocument),
    // Up, but with no route descriptions yet.
    CATALOG_URL: await startService(),
    // Nothing listens here: these services are down.
    ORDERS_URL: 'http://127.0.0.1:9',
    PAYMENTS_URL: 'http://127.0.0.1:9',
  });
  gateway = http.createServer(createGateway(config, redis, logger));
  await listen(gateway);
});

afterAll(async () => {
  await new Promise((r) => gateway.close(r));
  await Promise.all(services.map((s) => new Promise((r) => s.close(r))));
  services = [];
  await redis.quit();
});

const api = () => supertest(gateway);

describe('GET /api/docs/openapi.json from the real services', () => {
  let auth: TestAuth;
  let wallet: TestWallet;
  let real: http.Server;
  beforeAll(async () => {
    [auth, wallet] = await Promise.all([startTestAuth(), startTestWallet()]);
    const config = loadGatewayConfig({
      NODE_ENV: 'test',
      AUTH_URL: auth.service.url,
      WALLET_URL: wallet.service.url,
      CATALOG_URL: 'http://127.0.0.1:9',
      ORDERS_URL: 'http://127.0.0.1:9',
      PAYMENTS_URL: 'http://127.0.0.1:9',
    });
    real = http.createServer(createGateway(config, redis, createLogger('gateway', 'silent')));
    await listen(real);
  });
  afterAll(async () => {
    await new Promise((r) => real.close(r));
    await Promise.all([auth.stop(), wallet.stop()]);
  });

  it('holds every public route each service describes, and none of their internal ones', async () => {
    const merged = (await supertest(real).get('/api/docs/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const service of [auth, wallet]) {
      const own = (await supertest(service.service.url).get('/openapi.json').expect(200)).body as {
        paths: Record<string, Record<string, unknown>>;
      };
      expect(Object.keys(own.paths).length).toBeGreaterThan(3);
      for (const [path, methods] of Object.entries(own.paths)) expect(merged.paths[path]).toEqual(methods);
    }
    expect(merged.paths['/api/signin']).toHaveProperty('post');
    expect(merged.paths['/api/balance']).toHaveProperty('get');
    expect(Object.keys(merged.paths).filter((p) => p.startsWith('/internal'))).toEqual([]);
  });
});

describe('GET /api/docs/openapi.json', () => {
  it('merges the public paths and components of the services that describe themselves', async () => {
    const res = await api().get('/api/docs/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.0.3');
    expect(res.body.info.title).toBe('Raseed API');
    expect(Object.keys(res.body.paths).sort()).toEqual(['/api/balance', '/api/signin']);
    expect(res.body.components.schemas).toEqual({
      Error: errorSchema,
      User: { type: 'object' },
      Balance: { type: 'number' },
    });
    expect(res.body.components.securitySchemes.session).toEqual(
      authDocument.components.securitySchemes.session,
    );
    expect(warn).toHaveBeenCalledWith(
      { service: 'wallet', component: 'schemas/User' },
      expect.stringMatching(/differs/),
    );
  });

  it('names the services that are down or undescribed', async () => {
    const res = await api().get('/api/docs/openapi.json').expect(200);
    expect(res.body.info.description).toMatch(/Not described right now: catalog, orders, payments\./);
  });

  it('does not ask the services again within the 30 s cache', async () => {
    await api().get('/api/docs/openapi.json').expect(200);
    const before = authDocumentRequests;
    await api().get('/api/docs/openapi.json').expect(200);
    expect(authDocumentRequests).toBe(before);
  });
});

describe('GET /api/docs', () => {
  it('redirects to the page, whose relative assets then resolve under /api/docs/', async () => {
    const res = await api().get('/api/docs').expect(301);
    expect(res.headers.location).toBe('/api/docs/');
  });

  it('serves the Swagger UI page, every script and stylesheet of which loads', async () => {
    const page = await api().get('/api/docs/').expect(200).expect('content-type', /html/);
    expect(page.text).toContain('swagger-ui');
    // Inline scripts would be blocked by helmet's CSP (script-src 'self'); every script is a file.
    expect(page.text).not.toMatch(/<script>/);
    const assets = [...page.text.matchAll(/(?:src|href)="(\.\/[^"]+\.(?:js|css))"/g)].map(
      ([, asset = '']) => new URL(asset, 'http://gateway/api/docs/').pathname,
    );
    expect(assets).toEqual(
      expect.arrayContaining(['/api/docs/swagger-ui.css', '/api/docs/swagger-ui-init.js']),
    );
    for (const asset of assets) await api().get(asset).expect(200);
    const init = await api().get('/api/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('/api/docs/openapi.json');
    // "Try it out" must carry the header every state-changing call needs.
    expect(init.text).toMatch(/X-Requested-With'\] = 'XMLHttpRequest'/);
  });

  it('answers an unknown path under /api/docs with the JSON 404', async () => {
    const res = await api().get('/api/docs/nothing-here').expect(404);
    expect(res.body).toEqual({ error: 'Not found' });
  });
});
