import { trace } from '@opentelemetry/api';
import type { AddressInfo } from 'node:net';
import { request, type Server } from 'node:http';
import { instrument, requestLogging, ServiceClient } from '@raseed/kit';
import express, { type Express } from 'express';
import pino from 'pino';
import supertest from 'supertest';
import { eventually } from '@raseed/kit/testing';

/**
 * With no exporter (the default), HTTP is not patched: each request is put in its trace by
 * requestLogging's first step, and a call to another service carries it on. Two apps stand for
 * a service and the one it calls.
 */

instrument();

const current = () => {
  const { traceId, spanId } = trace.getActiveSpan()?.spanContext() ?? {};
  return { traceId, spanId };
};
/** The trace and span a step ran in, as it reported them. */
type Seen = ReturnType<typeof current>;

function listen(app: Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    );
  });
}

function traced(): Express {
  const app = express();
  app.use(requestLogging(pino({ enabled: false })));
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true, trace: current() });
  });
  return app;
}

/** What the called service saw of its request: the header that came, and the trace it ran in. */
const callee = traced().post('/debit', express.json(), (req, res) => {
  res.json({ traceparent: req.headers.traceparent, own: current(), body: req.body });
});

/** What the answer's listeners saw once it was sent (where the request's log line is written). */
const finished: Record<string, Seen> = {};

let servers: Server[] = [];
let caller: Express;
let callerUrl: string;

/**
 * A POST whose body comes a moment after its headers, and in two parts, as a slow phone's
 * would: the body's parser then reads it in listeners Node calls outside the request's trace.
 */
function slowPost(
  path: string,
  headers: Record<string, string>,
  body: object,
): Promise<{ handler: Seen; called: { traceparent?: string; own: Seen; body: unknown } }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${callerUrl}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
    });
    req.flushHeaders();
    const half = Math.floor(text.length / 2);
    setTimeout(() => req.write(text.slice(0, half)), 50);
    setTimeout(() => req.end(text.slice(half)), 100);
  });
}

beforeAll(async () => {
  const wallet = await listen(callee);
  const client = new ServiceClient('wallet', wallet.url, 'token');
  caller = traced().post('/order', express.json(), async (req, res) => {
    // The body's parser read the request in listeners of its own: the handler is still in the trace.
    const handler = current();
    res.on('finish', () => (finished[req.body.n as string] = current()));
    const called = await client.post<Record<string, unknown>>('/debit', { n: req.body.n });
    // A long answer is sent in parts: 'finish' comes once the last has gone, from the socket.
    res.json({ handler, called, pad: 'x'.repeat(req.body.pad ?? 0) });
  });
  const listening = await listen(caller);
  callerUrl = listening.url;
  servers = [wallet.server, listening.server];
});

afterAll(() => servers.forEach((s) => s.close()));

const HEX = (n: number) => new RegExp(`^[0-9a-f]{${n}}$`);

describe('trace context carried by hand', () => {
  it("continues the caller's trace under a span id of its own, into the body's parser, the answer's listeners and the next call", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const { handler, called } = await slowPost(
      '/order',
      { traceparent: `00-${traceId}-${parent}-01` },
      { n: 'a', pad: 4_000_000 },
    );
    expect(handler.traceId).toBe(traceId);
    expect(handler.spanId).toMatch(HEX(16));
    expect(handler.spanId).not.toBe(parent);
    // The called service is told the trace and the caller's span, keeping the sampled flag.
    expect(called.traceparent).toBe(`00-${traceId}-${handler.spanId}-01`);
    expect(called.own.traceId).toBe(traceId);
    expect(called.own.spanId).not.toBe(handler.spanId);
    expect(called.body).toEqual({ n: 'a' });
    await eventually(async () => finished.a);
    expect(finished.a).toEqual(handler);
  });

  it('starts a new trace for a request that names none, a different one each time', async () => {
    const [first, second] = await Promise.all(
      ['b', 'c'].map(async (n) => (await supertest(caller).post('/order').send({ n }).expect(200)).body),
    );
    for (const { handler, called } of [first, second]) {
      expect(handler.traceId).toMatch(HEX(32));
      expect(handler.traceId).not.toBe('0'.repeat(32));
      expect(called.traceparent).toBe(`00-${handler.traceId}-${handler.spanId}-00`);
      expect(called.own.traceId).toBe(handler.traceId);
    }
    expect(first.handler.traceId).not.toBe(second.handler.traceId);
    expect(finished.b?.traceId).toBe(first.handler.traceId);
  });

  it('leaves health checks out of any trace', async () => {
    const res = await supertest(caller).get('/healthz').expect(200);
    expect(res.body.trace).toEqual({});
  });

  it('ignores a malformed traceparent and starts a trace of its own', async () => {
    const res = await supertest(caller)
      .post('/order')
      .set('traceparent', '00-zz-not-a-trace-01')
      .send({ n: 'd' })
      .expect(200);
    expect(res.body.handler.traceId).toMatch(HEX(32));
    expect(res.body.called.own.traceId).toBe(res.body.handler.traceId);
  });
});
