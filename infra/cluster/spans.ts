import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@raseed/kit/testing';

/**
 * A receiver of the spans a store's processes export over OTLP/HTTP (JSON), for tests and the
 * bench to read one request's trace, and a trace context to start one with.
 */

/** OTLP span kinds. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  /** Milliseconds since the epoch. */
  start: number;
  end: number;
}

interface OtlpSpan extends Omit<ReceivedSpan, 'service' | 'start' | 'end'> {
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
}

interface ExportRequest {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

const ms = (nanos: string | number) => Number(BigInt(nanos) / 1000n) / 1000;

export class SpanReceiver {
  readonly spans: ReceivedSpan[] = [];

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<SpanReceiver> {
    const server = http.createServer();
    const receiver = new SpanReceiver(server);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        receiver.take(JSON.parse(Buffer.concat(chunks).toString()) as ExportRequest);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  private take(body: ExportRequest): void {
    for (const { resource, scopeSpans } of body.resourceSpans) {
      const service = resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
      for (const scope of scopeSpans) {
        for (const { startTimeUnixNano, endTimeUnixNano, ...span } of scope.spans) {
          this.spans.push({ ...span, service, start: ms(startTimeUnixNano), end: ms(endTimeUnixNano) });
        }
      }
    }
  }

  /** The environment that makes a store's processes export every span here, within 100 ms. */
  get env(): Record<string, string> {
    const { port } = this.server.address() as AddressInfo;
    return {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
  }

  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  /** Waits until `done` holds or `ms` pass; answers whether it held. */
  until(done: () => boolean, ms = 30_000): Promise<boolean> {
    return eventually(async () => done() || undefined, { timeoutMs: ms }).then(
      () => true,
      () => false,
    );
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A new trace's ids and the `traceparent` header that starts a request in it (sampled). */
export function newTrace() {
  const traceId = randomBytes(16).toString('hex');
  const root = randomBytes(8).toString('hex');
  return { traceId, root, traceparent: `00-${traceId}-${root}-01` };
}
