/**
 * The bench's own HTTP client for its loads: undici over kept-alive connections. Each answer's
 * bytes are read as they come, compressed when the server compressed them, as a browser's
 * network layer receives them. Node's fetch cost the bench about 0.7-1 ms of CPU a call (and
 * decompressed every page), and supertest opened a connection a call: time the store did not
 * spend, taken from the same two cores.
 */
import { Agent, request } from 'undici';

const agent = new Agent({ connections: 128, keepAliveTimeout: 30_000 });

/** What a browser asks for: the gateway answers in the best coding it has. */
export const ACCEPT_ENCODINGS = { 'accept-encoding': 'br, gzip' };

/** GETs `url`; answers its status and its bytes as sent. */
export async function get(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { dispatcher: agent, headers: { ...ACCEPT_ENCODINGS, ...headers } });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, bytes };
}

/** Sends `body` as JSON by `method`; answers the status and the parsed answer. */
export async function sendJson(
  method: 'POST' | 'PUT',
  url: string,
  body: object,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await request(url, {
    dispatcher: agent,
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  try {
    return { status: res.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  } catch {
    // Not JSON (a proxy's error page, say): the caller reports the status with the text.
    return { status: res.statusCode, body: { text } };
  }
}

/** Lets the process end: the kept connections are closed. */
export function closeClient(): Promise<void> {
  return agent.close();
}
