import type { Instances, Logger } from '@raseed/kit';
import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { ServiceName } from './routes';

interface OpenApiDocument {
  paths?: Record<string, unknown>;
  components?: Record<string, Record<string, unknown>>;
  tags?: { name: string }[];
}

const DOCUMENT_URL = '/api/docs/openapi.json';
const CACHE_MS = 30_000;

/** One public document from the services' own: /internal paths dropped, the first of two differing components kept. */
export function mergeDocuments(
  documents: [ServiceName, OpenApiDocument][],
  missing: ServiceName[],
  logger: Logger,
) {
  const paths: Record<string, unknown> = {};
  const components: Record<string, Record<string, unknown>> = {};
  const tags = new Map<string, { name: string }>();
  for (const [service, doc] of documents) {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      if (path !== '/internal' && !path.startsWith('/internal/')) paths[path] ??= item;
    }
    for (const [kind, entries] of Object.entries(doc.components ?? {})) {
      const merged = (components[kind] ??= {});
      for (const [name, value] of Object.entries(entries)) {
        if (!(name in merged)) merged[name] = value;
        else if (JSON.stringify(merged[name]) !== JSON.stringify(value)) {
          logger.warn(
            { service, component: `${kind}/${name}` },
            'OpenAPI component differs; keeping the first',
          );
        }
      }
    }
    for (const tag of doc.tags ?? []) if (!tags.has(tag.name)) tags.set(tag.name, tag);
  }
  const description = missing.length
    ? `Raseed's public API, merged from its services. Not described right now: ${missing.join(', ')}.`
    : "Raseed's public API, merged from its services.";
  return {
    openapi: '3.0.3',
    info: { title: 'Raseed API', version: '1.0.0', description },
    paths,
    components,
    ...(tags.size ? { tags: [...tags.values()] } : {}),
  };
}

async function fetchDocument(url: string): Promise<OpenApiDocument | undefined> {
  try {
    const res = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(2000) });
    return res.ok ? ((await res.json()) as OpenApiDocument) : undefined;
  } catch {
    return undefined;
  }
}

/** /api/docs: the browsable page, and /api/docs/openapi.json, the services' documents merged (cached 30 s). */
export function apiDocs(instances: Record<ServiceName, Instances>, logger: Logger): Router {
  let cache: { at: number; document: object } | undefined;
  const router = Router();

  router.get('/openapi.json', async (_req, res) => {
    if (!cache || Date.now() - cache.at > CACHE_MS) {
      const services = Object.entries(instances) as [ServiceName, Instances][];
      const fetched = await Promise.all(
        services.map(async ([name, at]) => [name, await fetchDocument(at.pick())] as const),
      );
      const documents = fetched.filter((entry): entry is [ServiceName, OpenApiDocument] => !!entry[1]);
      const missing = fetched.filter(([, doc]) => !doc).map(([name]) => name);
      cache = { at: Date.now(), document: mergeDocuments(documents, missing, logger) };
    }
    res.json(cache.document);
  });

  // The page loads its assets relatively (./swagger-ui.css), so it must be served as /api/docs/;
  // serve-static redirects /api/docs there. Every script is a same-origin file: helmet's default CSP fits.
  const options = {
    swaggerOptions: {
      url: DOCUMENT_URL,
      validatorUrl: null,
      // Serialised into swagger-ui-init.js so "Try it out" passes the gateway's X-Requested-With check.
      requestInterceptor: (request: { headers: Record<string, string> }) => {
        request.headers['X-Requested-With'] = 'XMLHttpRequest';
        return request;
      },
    },
  };
  router.use(swaggerUi.serveFiles(undefined, options));
  router.get('/', swaggerUi.setup(undefined, options));
  return router;
}
