import type { FieldErrors } from 'react-hook-form';
import { z } from 'zod';
import { warnFirst } from '../../lib/forms';
import { texts } from './texts';

export { sanitizeFieldName as fieldName } from '@raseed/forms';
export { SECTION_NAMES } from '@raseed/sections';

/**
 * What may be typed as a profit percentage: digits and one decimal point (spec §5), held to
 * the server's own limits (4 digits, 2 decimals) so a typed value is never refused.
 */
export const PROFIT_TYPING = /^\d{0,4}(\.\d{0,2})?$/;

export const FIELD_TYPES = ['TEXT', 'NUMBER'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

// Digits with an optional fraction: no sign or exponent, which the server refuses too.
const PRICE = /^\d+(\.\d+)?$/;

const filled = (message: string) => z.string().trim().min(1, message);

/** A chosen picture; a file the store would refuse never gets here (ImageInput clears it). */
const image = z
  .custom<File | null>((value) => value === null || value instanceof File)
  .refine((file): file is File => file !== null, texts.fillAll);

export const categorySchema = z.object({
  categoryName: filled(texts.fillAll),
  section: filled(texts.fillAll),
  image,
});

/** Create Product (spec §5): name, price and image first, then the category, then the extra fields. */
export const productSchema = z.object({
  productName: filled(texts.fillAll),
  price: filled(texts.fillAll).regex(PRICE, texts.invalidPrice),
  image,
  categoryId: filled(texts.chooseCategory),
  params: z.string().trim(),
  fields: z.array(
    z.object({
      fieldName: filled('Every extra field needs a name.'),
      fieldType: z
        .union([z.literal(''), z.enum(FIELD_TYPES)])
        .refine((type): type is FieldType => type !== '', 'Choose TEXT or NUMBER for every extra field.'),
      fieldValue: z.string().trim(),
    }),
  ),
});

export const priceSchema = z.object({
  price: z.string().trim().regex(PRICE, texts.invalidPrice),
});

/** warnFirst for a form with a list of rows: the first problem anywhere, the rows' included. */
export function warnFirstProblem(errors: FieldErrors): void {
  const message = firstMessage(errors);
  if (message) warnFirst({ problem: { type: 'custom', message } });
}

function firstMessage(errors: unknown): string | undefined {
  if (!errors || typeof errors !== 'object') return undefined;
  const { message } = errors as { message?: unknown };
  if (typeof message === 'string' && message) return message;
  for (const [key, value] of Object.entries(errors)) {
    // A field's error also holds its DOM element.
    if (key === 'ref') continue;
    const found = firstMessage(value);
    if (found) return found;
  }
  return undefined;
}
