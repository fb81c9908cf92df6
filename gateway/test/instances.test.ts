import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createLogger, Metrics, redisConnection, type RunningService } from '@raseed/kit';
import type IORedis from 'ioredis';
import supertest from 'supertest';
import { startWallet } from '../../services/wallet/src/service';
import {
  bearer,
  newUser,
  startTestWallet,
  type TestUser,
  type TestWallet,
} from '../../services/wallet/test/support';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';

/**
 * The gateway in front of two instances of the real wallet (one database): it spreads
 * requests over them, goes on when one stops, and sends a request to another instance only
 * when the first never took it or it carries an Idempotency-Key.
 */
let first: TestWallet;
let second: RunningService;
let dying: net.Server;
let dyingUrl: string;
/** Requests the dying instance took before it dropped them. */
let dropped = 0;
let redis: IORedis;
let customer: TestUser;
let admin: TestUser;

beforeAll(async () => {
  first = await startTestWallet();
  second = await startWallet({ ...first.config, PORT: 0 });
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  // An instance that dies with every request it takes (a process killed mid-request), yet
  // passes its health check, so the gateway keeps choosing it.
  dying = net.createServer((socket) => {
    socket.once('data', (chunk) => {
      if (chunk.toString().startsWith('GET /healthz ')) {
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
        return;
      }
      dropped++;
      socket.resetAndDestroy();
    });
  });
  await new Promise<void>((resolve) => dying.listen(0, '127.0.0.1', resolve));
  dyingUrl = `http://127.0.0.1:${(dying.address() as AddressInfo).port}`;
  [customer, admin] = [await newUser(), await newUser('admin')];
});

afterAll(async () => {
  dying.close();
  await second.stop();
  await first.stop();
  await redis.quit();
});

function gateway(walletUrls: string[]) {
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    WALLET_URL: walletUrls.join(','),
    // The other services are not part of this test.
    AUTH_URL: 'http://127.0.0.1:9',
    CATALOG_URL: 'http://127.0.0.1:9',
    ORDERS_URL: 'http://127.0.0.1:9',
    PAYMENTS_URL: 'http://127.0.0.1:9',
  });
  const metrics = new Metrics('gateway');
  const app = createGateway(config, redis, createLogger('gateway', 'silent'), metrics);
  return { api: () => supertest(app), metrics };
}

/** How many GET /api/balance a wallet instance answered, from its own /metrics. */
async function balancesServed(url: string): Promise<number> {
  const text = (await supertest(url).get('/metrics').expect(200)).text;
  const line = text
    .split('\n')
    .find((l) => l.startsWith('http_request_duration_seconds_count') && l.includes('route="/api/balance"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

it('spreads requests over the instances of a service', async () => {
  const { api } = gateway([first.service.url, second.url]);
  const before = [await balancesServed(first.service.url), await balancesServed(second.url)];
  for (let i = 0; i < 10; i++) await api().get('/api/balance').set(bearer(customer)).expect(200);
  const after = [await balancesServed(first.service.url), await balancesServed(second.url)];
  expect([after[0]! - before[0]!, after[1]! - before[1]!]).toEqual([5, 5]);
});

it('goes on without an instance that stopped: refused connections are sent to another', async () => {
  const third = await startWallet({ ...first.config, PORT: 0 });
  const { api } = gateway([third.url, first.service.url]);
  await third.stop();
  // The stopped instance's turn comes first: it refused the connection, so the request,
  // without a key, never reached it and goes to the live one, its body intact.
  const body = { user_id: customer.id, newdebt: 3, expected_debt: 0 };
  const answer = await api()
    .post('/api/editdebt')
    .set(bearer(admin))
    .set('X-Requested-With', 'XMLHttpRequest')
    .send(body);
  expect([answer.status, answer.body.debt]).toEqual([200, 3]);
  for (let i = 0; i < 6; i++) await api().get('/api/balance').set(bearer(customer)).expect(200);
});

it('sends a request an instance dropped again only when it carries an Idempotency-Key', async () => {
  const { api, metrics } = gateway([dyingUrl, first.service.url]);
  const edit = (expected: number, key?: string) => {
    const req = api()
      .post('/api/editdebt')
      .set(bearer(admin))
      .set('X-Requested-With', 'XMLHttpRequest')
      .send({ user_id: admin.id, newdebt: expected + 1, expected_debt: expected });
    return key ? req.set('Idempotency-Key', key) : req;
  };
  const before = dropped;
  // Turn by turn: the dying instance first. It may have acted on the request, so no retry.
  const lost = await edit(0);
  expect(lost.status).toBe(502);
  expect(dropped).toBe(before + 1);
  // The next turn is the live instance's; then the dying one's again, now with a key.
  expect((await edit(0)).status).toBe(200);
  const retried = await edit(1, randomUUID());
  expect([retried.status, retried.body.debt]).toEqual([200, 2]);
  expect(dropped).toBe(before + 2);

  // Proxied requests are timed under their routing prefix.
  const text = await metrics.registry.getSingleMetricAsString('http_request_duration_seconds');
  expect(text).toMatch(
    /http_request_duration_seconds_count\{[^}]*route="\/api\/editdebt"[^}]*status="502"[^}]*\} 1/,
  );
});

it('never serves /metrics to the public, whatever the path says', async () => {
  const { api } = gateway([first.service.url]);
  for (const path of ['/metrics', '/metrics/', '/METRICS', '/api/../metrics']) {
    const res = await api().get(path);
    expect({ path, refused: [400, 404].includes(res.status) }).toEqual({ path, refused: true });
  }
  // An encoded spelling is no route of ours at all: the storefront's page, never the figures.
  for (const path of ['/metrics', '/%6detrics', '/metrics%2f', '/api/%2e%2e/metrics']) {
    const res = await api().get(path);
    expect({ path, figures: /process_cpu|http_request_duration/.test(res.text) }).toEqual({
      path,
      figures: false,
    });
  }
});
