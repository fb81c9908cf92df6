import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { z } from 'zod';
import { badRequest, HttpError } from './errors';

/**
 * Parses request input with a schema; the first issue's message becomes the 400 answer,
 * so schemas carry the spec's texts as their messages.
 */
export function parseInput<S extends z.ZodTypeAny>(
  schema: S,
  input: unknown,
  fields?: Record<string, unknown>,
): z.infer<S> {
  // The local store (FerretDB on PostgreSQL) cannot hold or compare text with a NUL in it.
  if (holdsNul(input)) throw badRequest('The request may not contain the character U+0000.', fields);
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw badRequest(result.error.issues[0]?.message ?? 'Invalid request', fields);
}

/** Whether a NUL character is anywhere in a parsed input: its strings, its keys, at any depth. */
function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 20 || typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, inner]) => key.includes('\u0000') || holdsNul(inner, depth + 1));
}

export const objectIdPattern = /^[a-f0-9]{24}$/i;

const idempotencyHeader = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\w-]{8,100}$/, 'The Idempotency-Key header must be 8 to 100 letters, digits, - or _.')
    .optional(),
});

/**
 * The record id an owner's Idempotency-Key stands for (24 hex digits, an ObjectId): the same key
 * from the same owner always names the same record, so inserting it is what claims the key (rule 9).
 */
export const keyedId = (owner: string, key: string) =>
  createHash('sha256').update(`${owner}:${key}`).digest('hex').slice(0, 24);

/** The request's Idempotency-Key header: a retry that carries the same key has no second effect. */
export function idempotencyKey(req: Request, fields?: Record<string, unknown>): string | undefined {
  return parseInput(idempotencyHeader, req.headers, fields)['idempotency-key'];
}

/** The answer to new money asked for a deleted account (its ledger and earlier requests stay). */
export const ACCOUNT_DELETED = 'This account has been deleted.';

export const KEY_REUSED = 'This Idempotency-Key was used for a different request.';

/** The answer to a repeated Idempotency-Key whose request asks for something else. */
export const keyReused = (fields?: Record<string, unknown>) => new HttpError(422, KEY_REUSED, fields);

/**
 * A digest of what a request asks for, stored with its Idempotency-Key: a repeat of the key
 * is the same request only if its fingerprint is the same. Fields are taken in sorted order,
 * so the digest does not depend on how the caller built the object.
 */
export function requestFingerprint(
  what: Record<string, string | number | boolean | null | undefined>,
): string {
  const canonical = Object.keys(what)
    .sort()
    .map((name) => [name, what[name] ?? null]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** The longest product name a service stores: the wallet keeps it on each ledger entry. */
export const MAX_PRODUCT_NAME = 200;

/**
 * A product name as every service stores it: Unicode-normalised, one space between words, and
 * at most MAX_PRODUCT_NAME characters (a longer one is cut and marked with an ellipsis), so a
 * supplier's long name never makes an order fail at the wallet.
 */
export function productNameText(name: string): string {
  const text = name.normalize('NFC').replace(/\s+/g, ' ').trim();
  const chars = [...text];
  return chars.length <= MAX_PRODUCT_NAME ? text : `${chars.slice(0, MAX_PRODUCT_NAME - 1).join('')}…`;
}
