import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    redact: { paths: ['req.headers.cookie', 'req.headers.authorization', '*.password'], remove: true },
    // Each line written inside a trace names it, so a log line leads to the request's whole path.
    mixin: () => {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { traceId, spanId };
    },
  });
}
