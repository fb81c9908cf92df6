import type { ServerResponse } from 'node:http';

/**
 * A JSON answer on Node's own response: the handlers of a service's path run outside Express's
 * application (see createGateway), where a response has no `status` or `json` of its own.
 */
export function answer(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
