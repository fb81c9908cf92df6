import http from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import supertest from 'supertest';
import { instrument, redisConnection } from '@raseed/kit';
import { eventually } from '@raseed/kit/testing';
import type IORedis from 'ioredis';
import { createGateway } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { listen } from './listen';

/**
 * The gateway keeps no trace context of its own: a request's trace rides on its headers. The
 * service behind it is told the trace under the gateway's span, and the gateway's line for the
 * request names both, as a service's lines do.
 */
// As the gateway's instrument.ts does (spans go nowhere here, so requests carry their trace).
instrument({ express: false, asyncContext: false });

let redis: IORedis;
let gateway: http.Server;
let payments: http.Server;
const seen: http.IncomingHttpHeaders[] = [];
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  payments = http.createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"methods":[]}');
  });
  const paymentsUrl = await listen(payments);
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    AUTH_URL: 'http://127.0.0.1:9',
    WALLET_URL: 'http://127.0.0.1:9',
    CATALOG_URL: 'http://127.0.0.1:9',
    ORDERS_URL: 'http://127.0.0.1:9',
    PAYMENTS_URL: paymentsUrl,
  });
  const logged = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  gateway = http.createServer(createGateway(config, redis, pino({ level: 'info' }, logged)));
  await listen(gateway);
});

afterAll(async () => {
  await new Promise((r) => gateway.close(r));
  await new Promise((r) => payments.close(r));
  await redis.quit();
});

/** The `traceparent` the service was last sent. */
const lastSent = () => String(seen.at(-1)?.traceparent ?? '');

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

/** The gateway's line for the request with this id, written once it was answered. */
const lineOf = (requestId: string) =>
  eventually(async () =>
    lines.find((l) => (l.req as { id?: string } | undefined)?.id === requestId && l.res !== undefined),
  );

it("continues the caller's trace under a span of the gateway's own, sent on to the service and named in its line", async () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const caller = '00f067aa0ba902b7';
  await supertest(gateway)
    .get('/api/payments/methods')
    .set('traceparent', `00-${traceId}-${caller}-01`)
    .set('x-request-id', 'trace-test-1')
    .expect(200);
  const [, sentTrace, parent] = TRACEPARENT.exec(lastSent()) ?? [];
  expect(sentTrace).toBe(traceId);
  expect(parent).not.toBe(caller);
  expect(lastSent()).toBe(`00-${traceId}-${parent}-01`);
  expect(await lineOf('trace-test-1')).toMatchObject({ traceId, spanId: parent, res: { statusCode: 200 } });
});

it('starts a new trace for a request that names none (or a malformed one), a different one each time', async () => {
  await supertest(gateway).get('/api/payments/methods').set('x-request-id', 'trace-test-2').expect(200);
  const first = TRACEPARENT.exec(lastSent());
  await supertest(gateway)
    .get('/api/payments/methods')
    .set('traceparent', '00-zz-not-a-trace-01')
    .set('x-request-id', 'trace-test-3')
    .expect(200);
  const second = TRACEPARENT.exec(lastSent());
  expect(first?.[1]).not.toBe('0'.repeat(32));
  expect(second?.[1]).not.toBe(first?.[1]);
  expect(await lineOf('trace-test-2')).toMatchObject({ traceId: first?.[1], spanId: first?.[2] });
  expect(await lineOf('trace-test-3')).toMatchObject({ traceId: second?.[1], spanId: second?.[2] });
});

it('names the trace in the lines of a request that failed too', async () => {
  await new Promise((r) => payments.close(r));
  const traceId = 'aaf92f3577b34da6a3ce929d0e0e4736';
  await supertest(gateway)
    .get('/api/payments/methods')
    .set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`)
    .set('x-request-id', 'trace-test-4')
    .expect(502);
  const unreachable = await eventually(async () =>
    lines.find((l) => l.msg === 'service unreachable' && (l.req as { id?: string }).id === 'trace-test-4'),
  );
  expect(unreachable).toMatchObject({ traceId, spanId: expect.stringMatching(/^[0-9a-f]{16}$/) });
  expect(await lineOf('trace-test-4')).toMatchObject({ traceId, res: { statusCode: 502 } });
});
