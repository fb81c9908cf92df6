import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import { errorText, UNEXPECTED } from '../../lib/errors';

/** The catalogue administration's texts (spec §5, §8), word for word. */
export const texts = {
  fillAll: 'Please fill all fields and upload an image.',
  chooseCategory: 'Select an existing category or create one first.',
  invalidPrice: 'Please enter a valid number for the price',
  enterPercentage: 'Please enter a percentage',
  selectImage: 'Please select an image to upload.',
  tryAgain: 'An error occurred. Please try again.',
  supplierFailed: 'Something went wrong, Please try again.',
  customMissing: (name: string) => `Custom product data not found for ${name}.`,
} as const;

/** The home sections' pictures. */
export const sectionTexts = {
  updated: 'Section image updated.',
  reset: 'The section shows our artwork again.',
  failed: 'Failed to update the section image.',
  loadFailed: 'Failed to load the sections.',
} as const;

type RequestError = FetchBaseQueryError | SerializedError | undefined;

/** The server's `error` or `message` when it answered one (spec §8 Api Products), else the fallback. */
export function serverText(error: RequestError, fallback: string = UNEXPECTED): string {
  if (error && 'status' in error) {
    const body = error.data as { error?: unknown; message?: unknown } | undefined;
    for (const text of [body?.error, body?.message]) if (typeof text === 'string' && text) return text;
  }
  return errorText(error, { failed: fallback });
}

/** Why the categories did not load (spec §8 Catalogue administration). */
export const categoriesLoadText = (error: RequestError) =>
  errorText(error, {
    failed: 'Failed to fetch categories.',
    unreachable: 'An error occurred while fetching categories.',
    unexpected: 'An error occurred while fetching categories.',
  });

/** Why the created products did not load (spec §8 Catalogue administration). */
export const productsLoadText = (error: RequestError) => {
  const failed = 'An error occurred while fetching products.';
  return errorText(error, { failed, unreachable: failed, unexpected: failed });
};
