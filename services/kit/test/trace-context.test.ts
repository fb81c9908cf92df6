import { context, propagation, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createEvent } from '../src/events';
import { withTrace } from '../src/queue';
import { carriedContext, inSpan, openSpan, traceCarrier } from '../src/trace-context';

/**
 * How a trace crosses what a call stack does not (an event sent later by the relay, a job run
 * later by a worker), checked with an in-memory exporter: the carrier taken where the event or
 * job is made is continued by the send and by the consumer, in one trace.
 */
const exporter = new InMemorySpanExporter();

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
  );
});

afterAll(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

beforeEach(() => exporter.reset());

const ended = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)!;

it('carries nothing outside a trace', () => {
  expect(traceCarrier()).toBeUndefined();
  expect(createEvent('orders', 'user.deleted', 'u1', { userId: 'u1' })).not.toHaveProperty('trace');
  expect(withTrace({ orderId: 'o1' })).toEqual({ orderId: 'o1' });
});

it("follows an event from the request it was born in, through the relay's send, into its consumer", async () => {
  const event = await inSpan('POST /api/orders', { kind: SpanKind.SERVER }, async () =>
    createEvent('orders', 'user.deleted', 'u1', { userId: 'u1' }),
  );
  const request = ended('POST /api/orders');
  expect(event.trace?.traceparent).toBe(
    `00-${request.spanContext().traceId}-${request.spanContext().spanId}-01`,
  );

  // The relay, later and outside the request: its send continues the event's trace.
  const sending = openSpan('user.deleted publish', SpanKind.PRODUCER, carriedContext(event.trace));
  sending.span.end();
  // Kafka headers arrive as Buffers.
  const headers = Object.fromEntries(Object.entries(sending.carrier).map(([k, v]) => [k, Buffer.from(v)]));
  const job = await inSpan(
    'user.deleted process',
    { kind: SpanKind.CONSUMER, parent: carriedContext(headers) },
    async () => withTrace({ orderId: 'o1' }),
  );
  await inSpan(
    'order-placement place',
    { kind: SpanKind.CONSUMER, parent: carriedContext(job.trace) },
    async () => 1,
  );

  const chain = [
    'POST /api/orders',
    'user.deleted publish',
    'user.deleted process',
    'order-placement place',
  ].map(ended);
  expect(new Set(chain.map((s) => s.spanContext().traceId)).size).toBe(1);
  for (let i = 1; i < chain.length; i++) {
    expect(chain[i]!.parentSpanContext?.spanId).toBe(chain[i - 1]!.spanContext().spanId);
  }
});

it('starts a trace of its own for work nothing carried, and records a failure on its span', async () => {
  await expect(
    inSpan('order-status sync', { kind: SpanKind.CONSUMER, parent: carriedContext(undefined) }, async () => {
      throw new Error('supplier away');
    }),
  ).rejects.toThrow('supplier away');
  const span = ended('order-status sync');
  expect(span.parentSpanContext).toBeUndefined();
  expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'supplier away' });
  expect(span.events.map((e) => e.name)).toEqual(['exception']);
});
