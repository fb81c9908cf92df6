import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import pRetry from 'p-retry';
import { request } from 'undici';
import { forbidden, HttpError } from './errors';
import { Instances } from './instances';
import { traceHeaders } from './tracing';

/** Service-to-service calls (ARCHITECTURE rule 10) carry this header; the gateway never routes /internal. */
export const SERVICE_TOKEN_HEADER = 'x-service-token';

export function requireService(token: string): RequestHandler {
  const expected = Buffer.from(token);
  return (req, _res, next) => {
    const given = Buffer.from(String(req.headers[SERVICE_TOKEN_HEADER] ?? ''));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw forbidden('This call is for Raseed services only.');
    }
    next();
  };
}

/**
 * Calls another service's internal API. The calls it is used for are idempotent, so a
 * network failure or a 5xx is retried with backoff; a 4xx is the callee's answer and is
 * passed on as an HttpError carrying the callee's fields. With several instances each attempt
 * goes to the next healthy one, so a retry after an instance died reaches a live one.
 */
export class ServiceClient {
  private readonly instances: Instances;

  constructor(
    private readonly service: string,
    baseUrls: string | string[],
    private readonly token: string,
    private readonly options: { retries?: number; timeoutMs?: number } = {},
  ) {
    this.instances = new Instances(service, [baseUrls].flat()).start();
  }

  async post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  async get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const unavailable = `The ${this.service} service is unavailable. Please try again.`;
    const tried: string[] = [];
    return pRetry(
      async () => {
        const baseUrl = this.instances.pick(tried);
        tried.push(baseUrl);
        // undici's request rather than fetch: fetch builds web streams for every call, several
        // times the CPU of the call itself, and internal calls are an order's hot path. A
        // controller and a timer of our own: AbortSignal.timeout's signal costs a transferable
        // object on every call.
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), this.options.timeoutMs ?? 10_000);
        let status: number;
        let answer: Record<string, unknown> | undefined;
        try {
          let res: Awaited<ReturnType<typeof request>>;
          try {
            res = await request(`${baseUrl}${path}`, {
              method,
              headers: traceHeaders({
                'content-type': 'application/json',
                [SERVICE_TOKEN_HEADER]: this.token,
              }),
              body: body === undefined ? undefined : JSON.stringify(body),
              signal: abort.signal,
            });
          } catch (err) {
            if (refused(err)) this.instances.failed(baseUrl);
            throw new HttpError(503, unavailable);
          }
          status = res.statusCode;
          answer = (await res.body.json().catch(() => undefined)) as Record<string, unknown> | undefined;
        } finally {
          clearTimeout(timer);
        }
        const ok = status >= 200 && status < 300;
        // An answer cut off on its way is no answer: its outcome is unknown, as after a 5xx.
        if (ok && answer === undefined) throw new HttpError(503, unavailable);
        if (ok) return answer as T;
        const { error, ...fields } = answer ?? {};
        const failure = new HttpError(status, typeof error === 'string' ? error : unavailable, fields);
        if (status < 500) throw new pRetry.AbortError(failure);
        throw new HttpError(503, unavailable);
      },
      { retries: this.options.retries ?? 3, minTimeout: 100, maxTimeout: 1000 },
    );
  }
}

/** A connection the callee refused: the request never reached it. */
export const refused = (err: unknown): boolean => {
  const code =
    (err as { code?: string; cause?: { code?: string } })?.cause?.code ?? (err as { code?: string })?.code;
  return code === 'ECONNREFUSED';
};
