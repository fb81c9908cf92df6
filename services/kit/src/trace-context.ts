import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

/**
 * How a trace continues where a call stack does not: an event is born inside a request's insert
 * and sent later by the relay, a job is queued now and run later. Each carries the context it
 * was made in (W3C `traceparent`), and its consumer or worker continues that trace.
 */

/** The W3C trace context of a span (`traceparent`, maybe `tracestate`), as it travels in events and jobs. */
export type TraceCarrier = Record<string, string>;

const tracer = () => trace.getTracer('raseed');

/** The current trace context, to carry in an event or a job; undefined outside any trace. */
export function traceCarrier(): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** The context a carrier (an event's, a job's, Kafka headers) names, or the root. */
export function carriedContext(carrier: Record<string, unknown> | undefined): Context {
  if (!carrier) return ROOT_CONTEXT;
  const text: TraceCarrier = {};
  for (const [key, value] of Object.entries(carrier)) {
    if (typeof value === 'string' || Buffer.isBuffer(value)) text[key] = value.toString();
  }
  return propagation.extract(ROOT_CONTEXT, text);
}

/**
 * Runs work in a span that continues the trace `parent` holds (a consumed event, a job), so
 * whatever the work calls joins that trace; an error is recorded on the span and thrown on.
 */
export function inSpan<T>(
  name: string,
  options: { kind: SpanKind; parent?: Context; attributes?: Attributes },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(
    name,
    { kind: options.kind, attributes: options.attributes },
    options.parent ?? ROOT_CONTEXT,
    async (span) => {
      try {
        return await work(span);
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** A span started now and ended by the caller (a batch's sends), and the carrier that continues it. */
export function openSpan(name: string, kind: SpanKind, parent: Context, attributes?: Attributes) {
  const span = tracer().startSpan(name, { kind, attributes }, parent);
  const carrier: TraceCarrier = {};
  propagation.inject(trace.setSpan(parent, span), carrier);
  return { span, carrier };
}

export { SpanKind };
