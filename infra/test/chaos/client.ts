/** One HTTP request the run made (each retry is a request of its own). */
export interface RequestRecord {
  actor: string;
  op: string;
  method: string;
  url: string;
  start: number;
  end: number;
  /** 0 when no answer came (the connection failed or the call timed out). */
  status: number;
  error?: string;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export interface CallOptions {
  method?: string;
  token?: string;
  /** JSON, or a form (a top-up's multipart with its receipt). */
  body?: object | FormData;
  key?: string;
  headers?: Record<string, string>;
}

const ATTEMPT_TIMEOUT_MS = 90_000;

/**
 * Calls the store as the browser does (marked, with the caller's token and the request's
 * Idempotency-Key) and records every request with its start and end, for the check that no
 * 5xx was answered outside a fault. A request that got no answer or a 5xx is sent again
 * with the same key until it is answered or `until()` says to stop.
 */
export class Client {
  readonly requests: RequestRecord[] = [];

  async once(actor: string, op: string, url: string, options: CallOptions = {}): Promise<Answer> {
    const method = options.method ?? (options.body ? 'POST' : 'GET');
    const headers: Record<string, string> = { 'x-requested-with': 'XMLHttpRequest', ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.key) headers['idempotency-key'] = options.key;
    let body: string | FormData | undefined;
    if (options.body instanceof FormData) body = options.body;
    else if (options.body) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const record: RequestRecord = { actor, op, method, url, start: Date.now(), end: 0, status: 0 };
    this.requests.push(record);
    try {
      const res = await fetch(url, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      const text = await res.text();
      record.status = res.status;
      let parsed: Record<string, unknown> = {};
      try {
        parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        parsed = { text };
      }
      return { status: res.status, body: parsed };
    } catch (err) {
      record.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      return { status: 0, body: {} };
    } finally {
      record.end = Date.now();
    }
  }

  /** The request, again with the same key after no answer or a 5xx, until answered or told to stop. */
  async retried(
    actor: string,
    op: string,
    url: string,
    options: CallOptions,
    until: () => boolean,
  ): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      const answer = await this.once(actor, op, url, options);
      if (answer.status > 0 && answer.status < 500) return answer;
      if (until()) return answer;
      await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 3000)));
    }
  }
}
