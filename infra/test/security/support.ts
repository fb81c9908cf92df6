import { createHash, randomInt } from 'node:crypto';
import http from 'node:http';
import type { Connection } from 'mongoose';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body read as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * One request with its target sent byte for byte: HTTP clients normalise URLs (dot segments,
 * backslashes, case of the scheme), which is exactly what the path tests must not have done for them.
 */
export function raw(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    // Node sends a DELETE's body neither chunked nor sized unless told its length.
    const sized =
      body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = http.request({ host: hostname, port, method, path: target, headers: sized }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** An address of this file's own (TRUST_PROXY is loopback), so no limit counts another file's tries. */
export const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/**
 * Collections left out of the digest, and why: each changes by itself while nothing is asked
 * of the store. processed_events and outbox are the event plumbing (a consumer records the
 * events it applied; the relay marks what it published).
 */
const VOLATILE = /^(processed_events|outbox)$/;

/** One SHA-256 of every document of the databases, collection by collection, in _id order. */
export async function digest(databases: Record<string, Connection>): Promise<string> {
  const hash = createHash('sha256');
  for (const [name, conn] of Object.entries(databases).sort(([a], [b]) => a.localeCompare(b))) {
    const db = conn.db;
    if (!db) throw new Error(`the ${name} database is not open`);
    const collections = (await db.listCollections({}, { nameOnly: true }).toArray())
      .map((c) => c.name)
      .filter((c) => !VOLATILE.test(c))
      .sort();
    for (const collection of collections) {
      hash.update(`${name}.${collection}\n`);
      const docs = await db.collection(collection).find().sort({ _id: 1 }).toArray();
      for (const doc of docs) hash.update(`${JSON.stringify(doc)}\n`);
    }
  }
  return hash.digest('hex');
}

/** The digest once it holds still: events of earlier steps may still be landing. */
export async function settledDigest(databases: Record<string, Connection>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  let last = await digest(databases);
  for (;;) {
    await new Promise((r) => setTimeout(r, 700));
    const next = await digest(databases);
    if (next === last) return next;
    if (Date.now() > deadline)
      throw new Error('the store kept changing by itself: no digest to compare with');
    last = next;
  }
}

/** A JWT's parts re-encoded: for tokens that were never signed as they read. */
export const base64url = (value: object | string) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<
    string,
    unknown
  >;
}

/** Counts of what the suite checked, for the summary line. */
export const tally = { cells: 0, fuzzCases: 0, pathCases: 0, failures: 0, passed: 0, failed: 0 };

/** A test body whose outcome is counted for the final `N passed, N failed` line. */
export function counted(body: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await body();
      tally.passed++;
    } catch (err) {
      tally.failed++;
      throw err;
    }
  };
}

/** Mismatches collected over many cases, so one report names them all. */
export class Findings {
  readonly list: string[] = [];

  check(ok: boolean, what: string): void {
    if (!ok) {
      this.list.push(what);
      tally.failures++;
    }
  }
}
