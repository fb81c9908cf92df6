import type { Request } from 'express';
import { z } from 'zod';
import { badRequest } from './errors';

/**
 * Parses request input with a schema; the first issue's message becomes the 400 answer,
 * so schemas carry the spec's texts as their messages.
 */
export function parseInput<S extends z.ZodTypeAny>(
  schema: S,
  input: unknown,
  fields?: Record<string, unknown>,
): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw badRequest(result.error.issues[0]?.message ?? 'Invalid request', fields);
}

export const objectIdPattern = /^[a-f0-9]{24}$/i;

const idempotencyHeader = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\w-]{8,100}$/, 'The Idempotency-Key header must be 8 to 100 letters, digits, - or _.')
    .optional(),
});

/** The request's Idempotency-Key header: a retry that carries the same key has no second effect. */
export function idempotencyKey(req: Request, fields?: Record<string, unknown>): string | undefined {
  return parseInput(idempotencyHeader, req.headers, fields)['idempotency-key'];
}
