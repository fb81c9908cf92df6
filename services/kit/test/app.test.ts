import { get } from 'node:http';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import {
  conflict,
  connectMongo,
  createApp,
  createLogger,
  insertNew,
  isOutage,
  loadConfig,
  requireAdmin,
  requireUser,
  signSession,
  startService,
  type Role,
  type RunningService,
} from '@raseed/kit';
import { dropDatabase, MONGO_URL, testEnv, uniqueName } from '@raseed/kit/testing';
import { Schema } from 'mongoose';
import { Router } from 'express';
import supertest from 'supertest';
import { z } from 'zod';

const config = loadConfig(
  { PORT: z.coerce.number().default(0), MONGO_DB: z.string().default(uniqueName('raseed_kit_app_test_')) },
  testEnv('kit'),
);

const routes = Router();
routes.get('/taken', () => {
  throw conflict('That name is taken', { x: false });
});
routes.get('/broken', () => {
  throw new Error('secret detail from /srv/raseed/db.ts');
});
routes.get('/admin-only', requireAdmin, (_req, res) => {
  res.json({ admin: true });
});
routes.get('/me', requireUser, (req, res) => {
  res.json({ id: req.user?.id, role: req.user?.role });
});
routes.post('/echo', (req, res) => {
  res.json(req.body);
});
routes.get('/slow', async (_req, res) => {
  await new Promise((r) => setTimeout(r, 500));
  res.json({ done: true });
});

let service: RunningService;
const http = () => supertest(service.url);
/** An Authorization header for a fresh user with the role, signed with the secret. */
function session(role: Role, secret = config.JWT_SECRET): string {
  const user = {
    id: uniqueName('u'),
    username: 'sara',
    email: 'sara@example.com',
    phone: '',
    percentage: null,
  };
  return `Bearer ${signSession({ ...user, role }, secret, 60)}`;
}

beforeAll(async () => {
  service = await startService('kit-test', config, async () => ({ routes }));
});
afterAll(async () => {
  await service.stop();
  await dropDatabase(config.MONGO_DB);
});

describe('errors', () => {
  it('answers an HttpError with its status, its fields and the error text', async () => {
    const res = await http().get('/taken').expect(409);
    expect(res.body).toEqual({ x: false, error: 'That name is taken' });
  });

  it('answers an unexpected error with a bare 500, leaking nothing', async () => {
    const res = await http().get('/broken').expect(500);
    expect(res.body).toEqual({ error: 'Internal server error' });
    expect(res.text).not.toMatch(/secret detail|db\.ts|at /);
  });

  it('answers malformed JSON with 400, a body over the limit with 413, and an unknown path with 404', async () => {
    const bad = await http().post('/echo').set('content-type', 'application/json').send('{"a":').expect(400);
    expect(bad.body).toEqual({ error: 'Malformed JSON body' });
    const big = await http()
      .post('/echo')
      .send({ blob: 'x'.repeat(200 * 1024) })
      .expect(413);
    expect(big.body).toEqual({ error: 'Request body is too large' });
    await http()
      .post('/echo')
      .send({ blob: 'x'.repeat(50 * 1024) })
      .expect(200);
    expect((await http().get('/nowhere').expect(404)).body).toEqual({ error: 'Not found' });
  });
});

describe('guards', () => {
  it('lets only a signed-in user through requireUser, by bearer token or cookie', async () => {
    expect((await http().get('/me').expect(401)).body).toEqual({ error: 'Please sign in first.' });
    await http().get('/me').set('authorization', session('user')).expect(200);
    const token = session('user').slice('Bearer '.length);
    const res = await http().get('/me').set('cookie', `token=${token}`).expect(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^u/), role: 'user' });
  });

  it('lets only an admin through requireAdmin', async () => {
    await http().get('/admin-only').expect(401);
    const user = await http().get('/admin-only').set('authorization', session('user')).expect(403);
    expect(user.body).toEqual({ error: 'You do not have permission to do this.' });
    await http().get('/admin-only').set('authorization', session('admin')).expect(200, { admin: true });
  });

  it('treats a token signed with another secret as no session', async () => {
    const forged = session('admin', 'another-secret-that-is-long-enough-to-use');
    await http().get('/admin-only').set('authorization', forged).expect(401);
    await http().get('/me').set('authorization', forged).expect(401);
  });
});

describe('health and request ids', () => {
  it('answers /healthz and /readyz with mongo and redis up', async () => {
    await http().get('/healthz').expect(200, { status: 'ok' });
    const ready = await http().get('/readyz').expect(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { mongo: 'up', redis: 'up' } });
  });

  it('counts a readiness check that does not answer as down, and answers the probe within seconds', async () => {
    const app = createApp({
      logger: createLogger('kit-test', 'silent'),
      jwtSecret: config.JWT_SECRET,
      routes: Router(),
      readiness: { up: async () => true, stuck: () => new Promise<boolean>(() => undefined) },
    });
    const started = Date.now();
    const probe = await supertest(app).get('/readyz').expect(503);
    expect(probe.body).toEqual({ status: 'not ready', checks: { up: 'up', stuck: 'down' } });
    // Bounded by the probe's own limit (2 s), not by the check: a stuck one would never answer.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('echoes a well-formed x-request-id and generates one otherwise', async () => {
    const given = await http().get('/healthz').set('x-request-id', 'req-12345678').expect(200);
    expect(given.headers['x-request-id']).toBe('req-12345678');
    const none = await http().get('/healthz').expect(200);
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await http().get('/healthz').set('x-request-id', 'bad id <script>').expect(200);
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('graceful stop', () => {
  it('finishes the request in flight, then refuses new connections', async () => {
    const inFlight = getOnce(`${service.url}/slow`);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await service.stop();
    expect(Date.now() - started).toBeLessThan(1500);

    await expect(inFlight).resolves.toEqual({ status: 200, body: { done: true } });
    await expect(getOnce(`${service.url}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  // A keep-alive client (a gateway, fetch) leaves its connection idle after the answer;
  // stop should not then wait for the keep-alive timeout.
  it('does not wait for a keep-alive connection that went idle after its answer', async () => {
    const other = await startService('kit-test', config, async () => ({ routes }));
    const inFlight = fetch(`${other.url}/slow`);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await other.stop();
    expect((await inFlight).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

/** One GET on its own connection (no keep-alive), answering the status and the JSON body. */
function getOnce(url: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    }).on('error', reject);
  });
}

/**
 * A way to the document store that drops the connection of any insert sent through it, as a
 * store stopping mid-write does.
 */
async function droppingInserts() {
  const store = new URL(MONGO_URL);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(store.port), store.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => {
      if (chunk.includes('insert\0')) {
        client.destroy();
        upstream.destroy();
      } else upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `mongodb://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('outages', () => {
  it('reads an unordered insert cut off by a lost connection as the store being away (503), and a duplicate key as not', async () => {
    const way = await droppingInserts();
    const conn = await connectMongo(way.url, config.MONGO_DB);
    try {
      const model = conn.model('Cut', new Schema({ _id: String }), 'cut');
      const cut = await insertNew(model, [{ _id: 'a' }, { _id: 'b' }]).catch((err: unknown) => err);
      // The driver wraps the network error in a bulk write error, which carries no write error.
      expect((cut as Error).name).toBe('MongoBulkWriteError');
      expect(isOutage(cut)).toBe(true);
    } finally {
      await conn.close();
      await way.close();
    }
    expect(isOutage(new Error('E11000 duplicate key'))).toBe(false);
    expect(
      isOutage(
        Object.assign(new Error('bulk'), { name: 'MongoBulkWriteError', errorResponse: new Error('x') }),
      ),
    ).toBe(false);
  });
});
