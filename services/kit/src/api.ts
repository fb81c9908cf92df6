import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { Router, type RequestHandler } from 'express';
import type { AnyZodObject, ZodTypeAny } from 'zod';
import { requireAdmin, requireUser, SESSION_COOKIE } from './auth';
import { requireService } from './internal';
import { z } from './zod';

export type Access = 'public' | 'user' | 'admin' | 'internal';

export interface RouteSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI style: `/api/payments/{id}/update-status`. */
  path: string;
  summary: string;
  access: Access;
  /** A JSON body, described by the schema the handler validates it with. */
  body?: ZodTypeAny;
  /** A multipart form: its text fields, and the name of its one file field. */
  form?: { fields: AnyZodObject; file: string };
  query?: AnyZodObject;
  /** The success answer. */
  answer?: ZodTypeAny;
  status?: number;
}

const errorAnswer = z.object({ error: z.string() });

/**
 * A service's routes, each declared once: the declaration mounts the handlers behind the
 * guard its access names, and describes the route in the service's OpenAPI document from
 * the same zod schemas the handlers validate with.
 */
export class ApiRoutes {
  readonly router = Router();
  readonly registry = new OpenAPIRegistry();
  /** Every route mounted, internal ones included (the security suite walks them all). */
  readonly specs: RouteSpec[] = [];
  private readonly guards: Record<Access, RequestHandler[]>;

  constructor(serviceToken: string) {
    this.guards = {
      public: [],
      user: [requireUser],
      admin: [requireAdmin],
      internal: [requireService(serviceToken)],
    };
    this.registry.registerComponent('securitySchemes', 'session', {
      type: 'apiKey',
      in: 'cookie',
      name: SESSION_COOKIE,
    });
  }

  route(spec: RouteSpec, ...handlers: RequestHandler[]): this {
    const expressPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
    this.router[spec.method](expressPath, ...this.guards[spec.access], ...handlers);
    this.specs.push(spec);
    if (spec.access !== 'internal') this.describe(spec);
    return this;
  }

  private describe(spec: RouteSpec): void {
    const params = [...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
    const signedIn = spec.access !== 'public';
    const responses: Record<string, { description: string; content?: object }> = {
      [spec.status ?? 200]: {
        description: 'Success',
        ...(spec.answer && { content: { 'application/json': { schema: spec.answer } } }),
      },
      400: { description: 'Invalid input', content: { 'application/json': { schema: errorAnswer } } },
    };
    if (signedIn) responses[401] = { description: 'Not signed in' };
    if (spec.access === 'admin') responses[403] = { description: 'Admins only' };
    this.registry.registerPath({
      method: spec.method,
      path: spec.path,
      summary: spec.summary,
      tags: [spec.path.split('/')[2] ?? 'api'],
      ...(signedIn && { security: [{ session: [] }] }),
      request: {
        ...(params.length && { params: z.object(Object.fromEntries(params.map((p) => [p, z.string()]))) }),
        ...(spec.query && { query: spec.query }),
        ...((spec.body || spec.form) && {
          body: {
            content: {
              ...(spec.body && { 'application/json': { schema: spec.body } }),
              ...(spec.form && {
                'multipart/form-data': {
                  schema: spec.form.fields.extend({
                    [spec.form.file]: z.string().openapi({ type: 'string', format: 'binary' }),
                  }),
                },
              }),
            },
          },
        }),
      },
      responses,
    });
  }
}

/** A service's OpenAPI document, served at /openapi.json for the gateway to merge into /api/docs. */
export function openApiDocument(service: string, registries: OpenAPIRegistry[]) {
  const definitions = registries.flatMap((r) => r.definitions);
  return new OpenApiGeneratorV3(definitions).generateDocument({
    openapi: '3.0.3',
    info: { title: `Raseed ${service}`, version: '1.0.0' },
  });
}
