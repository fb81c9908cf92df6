import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  RandomIdGenerator,
  TracerProvider,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type { Request, RequestHandler } from 'express';
import { requestSlot } from './request-slot';

/**
 * Traces (OpenTelemetry): one trace per request, followed from the gateway through the
 * services (HTTP), over Kafka (the context an event was born in travels with it, see
 * trace-context.ts) into the consumers and the jobs they queue. Where spans go is chosen by
 * OTEL_TRACES_EXPORTER: `none` (the default: nothing is recorded, but trace ids still travel
 * from process to process and into the logs), `console`, or `otlp` (OTLP over HTTP to
 * OTEL_EXPORTER_OTLP_ENDPOINT, e.g. Jaeger).
 *
 * With `none`, nothing is patched: a request takes its trace from its `traceparent` (see
 * requestTrace) and a call to another service sends it on (traceHeaders). Patched HTTP would
 * carry the same ids at about a millisecond of CPU per request and per hop, for spans nobody
 * keeps.
 */

/** Probes and scrapes are not traced: they would bury the requests that matter. */
const quiet = (path: string | undefined) => /^\/(healthz|readyz|metrics)\b/.test(path ?? '');

let instrumented = false;
/** No spans are recorded: requests and calls carry their trace context by hand, HTTP is not patched. */
let byHand = false;
/**
 * By hand, whether a request's trace is kept through everything its handling goes on to do
 * (AsyncLocalStorage), or rides on the request alone (see requestTrace).
 */
let kept = true;
const ids = new RandomIdGenerator();

/**
 * Sets up the trace context every process carries (and its id in the logs). When spans are
 * sent somewhere (OTEL_TRACES_EXPORTER), it also patches HTTP and fetch, Express (unless
 * `express` is false), the store driver and Redis. It must run before those modules are loaded,
 * so a process's entry point imports `@raseed/kit/dist/instrument` (or its own such module) first.
 *
 * A process that only passes requests on (`asyncContext` false) keeps no context across its
 * asynchronous steps when spans are not recorded: each request carries its own trace (see
 * requestTrace), which spares every promise of the process AsyncLocalStorage's hooks.
 */
export function instrument({
  express = true,
  asyncContext = true,
}: { express?: boolean; asyncContext?: boolean } = {}): void {
  // The standard switch: nothing is patched, nothing traced, and logs carry no trace ids.
  if (instrumented || process.env.OTEL_SDK_DISABLED === 'true') return;
  instrumented = true;
  const recording = (process.env.OTEL_TRACES_EXPORTER ?? 'none') !== 'none';
  byHand = !recording;
  kept = recording || asyncContext;
  if (kept) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (byHand) return;
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => quiet(req.url),
        ignoreOutgoingRequestHook: (req) => quiet(req.path ?? undefined),
        requireParentforOutgoingSpans: true,
      }),
      new UndiciInstrumentation({ ignoreRequestHook: (req) => quiet(req.path), requireParentforSpans: true }),
      // Routes and handlers; the shared middleware (helmet, parsers, logging) would only add noise.
      ...(express ? [new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] })] : []),
      // Pollers (the outbox relay, workers waiting for jobs) make no spans of their own.
      new MongoDBInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
}

/** The trace and span of a request that carries its own (see requestTrace). */
const requestSpans = requestSlot<{ traceId: string; spanId: string }>('span');

/** The ids a request's log lines name, when the request carries its trace itself (else none). */
export const requestSpan = (req: Request) => requestSpans.get(req);

/**
 * Puts each request in its trace when HTTP is not patched: the caller's (its `traceparent`,
 * under a span id of this process's own), or a new one. What comes after runs in it. The body's
 * readers (raw-body under express.json and the gateway, multer) call back in the context they
 * were called in, and an answer's 'finish' comes in the context of its end, so the handlers and
 * the request's log line stay in the trace without the request's emitters being rebound.
 *
 * In a process that keeps no context (see instrument), the request carries it instead: its
 * `traceparent` names this process's span, so whatever passes the request's headers on (the
 * gateway's proxy) makes that span the next one's parent, and its log lines name both ids.
 */
export function requestTrace(): RequestHandler {
  return (req, _res, next) => {
    if (!byHand || quiet(req.url)) return next();
    const carried = propagation.extract(ROOT_CONTEXT, req.headers);
    const caller = trace.getSpanContext(carried);
    const own = {
      traceId: caller?.traceId ?? ids.generateTraceId(),
      spanId: ids.generateSpanId(),
      traceFlags: caller?.traceFlags ?? TraceFlags.NONE,
      traceState: caller?.traceState,
    };
    const inTrace = trace.setSpan(carried, trace.wrapSpanContext(own));
    if (kept) return context.with(inTrace, next);
    propagation.inject(inTrace, req.headers);
    requestSpans.set(req, { traceId: own.traceId, spanId: own.spanId });
    next();
  };
}

/** `headers` with the current trace context added, for a call to another service when HTTP is not patched. */
export function traceHeaders(headers: Record<string, string>): Record<string, string> {
  if (byHand) propagation.inject(context.active(), headers);
  return headers;
}

function exporterProcessor(kind: string): SpanProcessor | null {
  switch (kind) {
    case 'none':
      return null;
    case 'console':
      return new BatchSpanProcessor({ exporter: new ConsoleSpanExporter() });
    case 'otlp':
      return new BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        scheduledDelayMillis: Number(process.env.OTEL_BSP_SCHEDULE_DELAY ?? 1000),
      });
    default:
      throw new Error(`OTEL_TRACES_EXPORTER must be none, console or otlp, not '${kind}'.`);
  }
}

/**
 * Starts recording the process's spans under the service's name. Only a process whose entry
 * point instrumented it traces (tests that run services inside jest do not); answers a flush
 * to call before the process exits.
 */
export function startTracing(service: string, exporter = process.env.OTEL_TRACES_EXPORTER ?? 'none') {
  const processor = exporterProcessor(exporter);
  if (!instrumented) return async () => undefined;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: processor ? [processor] : [],
    // With nowhere to send them, spans are not recorded at all: they still carry trace ids
    // from process to process (and into the logs) at a fraction of the cost.
    sampler: processor ? new ParentBasedSampler({ root: new AlwaysOnSampler() }) : new AlwaysOffSampler(),
  });
  trace.setGlobalTracerProvider(provider);
  return () => provider.shutdown().catch(() => undefined);
}
