import http from 'node:http';

export interface LiveMessage {
  event: string;
  data: unknown;
}

/** A page's live stream as a test reads it: its answer, the messages so far, and whether it ended. */
export interface TestStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  messages: LiveMessage[];
  ended: Promise<void>;
  /** The first message (from the start) that `match` accepts, within `timeoutMs`. */
  next(match: (m: LiveMessage) => boolean, timeoutMs?: number): Promise<LiveMessage>;
  close(): void;
}

/** Opens GET {base}/api/events with the session cookie, as EventSource does. */
export function openStream(base: string, token?: string): Promise<TestStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${base}/api/events`,
      { headers: { Accept: 'text/event-stream', ...(token && { Cookie: `token=${token}` }) } },
      (res) => {
        const messages: LiveMessage[] = [];
        const waiters = new Set<() => void>();
        let buffer = '';
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const lines = frame.split('\n');
            const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
            const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
            if (event && data !== undefined) messages.push({ event, data: JSON.parse(data) });
          }
          for (const wake of waiters) wake();
        });
        const ended = new Promise<void>((done) => {
          res.on('end', done);
          res.on('close', done);
        });
        const stream: TestStream = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          get body() {
            return body;
          },
          messages,
          ended,
          next: (match, timeoutMs = 10_000) =>
            new Promise((found, fail) => {
              const check = () => {
                const hit = messages.find(match);
                if (!hit) return;
                waiters.delete(check);
                clearTimeout(timer);
                found(hit);
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(
                  new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages)}`),
                );
              }, timeoutMs);
              waiters.add(check);
              check();
            }),
          close: () => req.destroy(),
        };
        resolve(stream);
      },
    );
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
  });
}
