import { createHash } from 'node:crypto';
import http from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import {
  IDLE_CONNECTION_MS,
  refused,
  SESSION_COOKIE,
  type Instances,
  type Logger,
  type Metrics,
} from '@raseed/kit';
import type { Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import type { GatewayConfig } from './config';
import { pathOf } from './paths';

/**
 * The catalogue's public reads (services/catalog/src/routes/reads.ts). Without a session each
 * answers every caller alike. Two answer a session alike too (the home page's sections, the
 * supplier categories' images); three answer it differently, which is why only requests
 * without one are kept: a category page (a signed-in customer's prices carry their discount),
 * and the store's own categories and products (an admin also sees the switched-off ones).
 * Catalogue pictures are not JSON: they carry their own Cache-Control, for good.
 */
const PUBLIC_READS = [
  /^\/api\/catalog\/sections$/,
  /^\/api\/catalog\/category\/[^/]+$/,
  /^\/api\/categories$/,
  /^\/api\/products$/,
  /^\/api\/custom-categories$/,
];

/**
 * A service reads the session from the `token` cookie or the Authorization header (kit's
 * sessionFrom). The raw cookie header is searched, not parsed, so no spelling a parser might
 * read as the session is ever answered from the cache.
 */
const SESSION_IN_COOKIE = new RegExp(SESSION_COOKIE, 'i');
const mayCarrySession = (req: Request) =>
  req.headers.authorization !== undefined || SESSION_IN_COOKIE.test(req.headers.cookie ?? '');

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
const NOT_TO_KEEP = /\b(?:no-store|private|no-cache)\b/i;
/** Smaller bodies gain less from compression than its header costs. */
const COMPRESS_ABOVE = 1024;
/** Brotli's best quality costs about 100 times the time of quality 5 for a few percent less. */
const BROTLI_OPTIONS = {
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
  },
};
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const UPSTREAM_TIMEOUT_MS = 30_000;
/** Headers of the service's answer that describe the connection, not the answer. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

type Coding = 'br' | 'gzip' | 'identity';

interface Upstream {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One read as kept: the body once, in each coding worth sending, each with its strong ETag. */
interface CachedRead {
  type: string;
  bodies: Partial<Record<Coding, Buffer>> & { identity: Buffer };
  tags: Record<Coding, string>;
  size: number;
}

/** A fetch for one key, shared by the requests that missed it meanwhile. */
interface Fetched {
  upstream: Upstream;
  entry?: CachedRead;
}

/** Only a plain 200 JSON answer the service lets a shared cache keep, meant for no one in particular. */
const keepable = ({ status, headers }: Upstream) =>
  status === 200 &&
  JSON_TYPE.test(headers['content-type'] ?? '') &&
  !NOT_TO_KEEP.test(headers['cache-control'] ?? '') &&
  headers['set-cookie'] === undefined &&
  headers.vary === undefined &&
  headers['content-encoding'] === undefined;

async function cachedRead({ headers, body }: Upstream): Promise<CachedRead> {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 32);
  const [br, gz] =
    body.length > COMPRESS_ABOVE ? await Promise.all([brotli(body, BROTLI_OPTIONS), gzip(body)]) : [];
  // Each coding is its own representation, so each has its own strong tag.
  return {
    type: headers['content-type']!,
    bodies: { identity: body, br, gzip: gz },
    tags: { identity: `"${hash}"`, br: `"${hash}-br"`, gzip: `"${hash}-gzip"` },
    size: body.length + (br?.length ?? 0) + (gz?.length ?? 0),
  };
}

/** The codings the client takes (q above 0), by Accept-Encoding; identity unless refused outright. */
function accepted(header: string | undefined): (coding: Coding) => boolean {
  const q = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const weight = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    q.set(name, weight ? Number(weight.slice(2)) || 0 : 1);
  }
  return (coding) => (q.get(coding) ?? q.get('*') ?? (coding === 'identity' ? 1 : 0)) > 0;
}

/** Brotli when the client takes it, then gzip, else the body as it is. */
function codingFor(req: Request, entry: CachedRead): Coding {
  const takes = accepted(req.headers['accept-encoding']);
  return (['br', 'gzip'] as const).find((c) => entry.bodies[c] && takes(c)) ?? 'identity';
}

/** If-None-Match compares tags weakly (RFC 9110 §13.1.2): a W/ prefix does not matter. */
const unchanged = (ifNoneMatch: string | undefined, tag: string) =>
  ifNoneMatch !== undefined &&
  ifNoneMatch.split(',').some((t) => {
    const given = t.trim();
    return given === '*' || given.replace(/^W\//, '') === tag;
  });

function answerFromCache(req: Request, res: Response, entry: CachedRead): void {
  const coding = codingFor(req, entry);
  res.setHeader('vary', 'Accept-Encoding');
  // The same address answers a signed-in customer with their own prices: a browser may keep
  // this answer but must ask again before reusing it (a 304 here when nothing changed).
  res.setHeader('cache-control', 'no-cache');
  res.setHeader('etag', entry.tags[coding]);
  if (unchanged(req.headers['if-none-match'], entry.tags[coding])) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const body = entry.bodies[coding]!;
  res.statusCode = 200;
  res.setHeader('content-type', entry.type);
  if (coding !== 'identity') res.setHeader('content-encoding', coding);
  res.setHeader('content-length', body.length);
  res.end(body);
}

/** The service's answer as it came, for the request that fetched it when it is not to be kept. */
function answerAsFetched(res: Response, { status, headers, body }: Upstream): void {
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
  }
  res.statusCode = status;
  res.setHeader('content-length', body.length);
  res.end(body);
}

function fetchFrom(
  agent: http.Agent,
  instance: string,
  target: string,
  requestId: string,
): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      new URL(target, instance),
      {
        agent,
        headers: { accept: 'application/json', 'x-request-id': requestId },
        timeout: UPSTREAM_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(new Error('The service closed the connection before answering in full'));
          else resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('The service took too long to answer')));
    req.on('error', reject);
  });
}

/**
 * A short-lived cache of visitors' catalogue reads (PUBLIC_READS), in front of the proxy. A
 * request that may carry a session goes to the service and is never kept. A kept read is
 * compressed and tagged once, then answered to everyone in the coding they take, or with 304
 * when their copy is current. Requests that miss the same read meanwhile share one fetch.
 *
 * An admin's change to the catalogue shows to visitors within PUBLIC_CACHE_MS (2 s by default),
 * plus the time of a fetch that was under way. Each gateway instance keeps its own cache.
 * Anything the cache cannot answer (a fetch that failed, a read not kept) goes on to the proxy,
 * which tries another instance and answers 502 when none answers.
 */
export function publicReads(
  catalog: Instances,
  config: Pick<GatewayConfig, 'PUBLIC_CACHE_MS' | 'PUBLIC_CACHE_MAX_ENTRIES' | 'PUBLIC_CACHE_MAX_BYTES'>,
  logger: Logger,
  metrics: Metrics,
): RequestHandler {
  if (!config.PUBLIC_CACHE_MS) return (_req, _res, next) => next();
  const cache = new LRUCache<string, CachedRead>({
    ttl: config.PUBLIC_CACHE_MS,
    max: config.PUBLIC_CACHE_MAX_ENTRIES,
    maxSize: config.PUBLIC_CACHE_MAX_BYTES,
    sizeCalculation: (entry) => entry.size,
  });
  const fetching = new Map<string, Promise<Fetched>>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: IDLE_CONNECTION_MS });
  const answers = { hit: 0, miss: 0, pass: 0 };
  metrics.gauge(
    'gateway_public_cache_answers',
    'Public catalogue reads since start: from the cache (hit), after a fetch for it (miss), or sent on to the service (pass: a session, or a read not kept)',
    ['result'],
    async () => Object.entries(answers).map(([result, value]) => ({ labels: { result }, value })),
  );
  metrics.figure(
    'gateway_public_cache_bytes',
    'Bytes the kept catalogue reads take',
    async () => cache.calculatedSize,
  );

  async function fetchRead(key: string, target: string, requestId: string): Promise<Fetched> {
    const instance = catalog.pick();
    try {
      const upstream = await fetchFrom(agent, instance, target, requestId);
      if (!keepable(upstream)) return { upstream };
      const entry = await cachedRead(upstream);
      cache.set(key, entry);
      return { upstream, entry };
    } catch (err) {
      if (refused(err)) catalog.failed(instance);
      logger.warn({ err, service: catalog.service, instance }, 'public read not fetched; the proxy answers');
      throw err;
    }
  }

  return (req, res, next) => {
    const path = pathOf(req);
    if (req.method !== 'GET' || !PUBLIC_READS.some((read) => read.test(path))) return next();
    if (mayCarrySession(req)) {
      answers.pass++;
      return next();
    }
    const key = `GET ${req.originalUrl}`;
    const kept = cache.get(key);
    if (kept) {
      answers.hit++;
      return answerFromCache(req, res, kept);
    }
    let shared = fetching.get(key);
    const first = !shared;
    if (!shared) {
      shared = fetchRead(key, req.originalUrl, String(req.headers['x-request-id'])).finally(() =>
        fetching.delete(key),
      );
      fetching.set(key, shared);
    }
    shared.then(
      ({ upstream, entry }) => {
        if (entry) {
          answers.miss++;
          return answerFromCache(req, res, entry);
        }
        answers.pass++;
        // Not to be kept, so not to be shared either: the others ask the service themselves.
        if (first) return answerAsFetched(res, upstream);
        next();
      },
      () => {
        answers.pass++;
        next();
      },
    );
  };
}
