import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SerializedError } from '@reduxjs/toolkit';

type RequestError = FetchBaseQueryError | SerializedError | undefined;

/** The spec's fallbacks for a failed call: no answer at all, or an answer without a text. */
export interface Fallbacks {
  failed: string;
  unreachable?: string;
  unexpected?: string;
}

export const UNREACHABLE = 'Unable to connect to the server. Please try again later.';
export const UNEXPECTED = 'An unexpected error occurred. Please try again.';

/** The server's `error` text when it answered one, otherwise the matching fallback. */
export function errorText(error: RequestError, fallbacks: Fallbacks): string {
  if (!error) return fallbacks.failed;
  if ('status' in error) {
    if (error.status === 'FETCH_ERROR' || error.status === 'TIMEOUT_ERROR') {
      return fallbacks.unreachable ?? UNREACHABLE;
    }
    const body = error.data as { error?: unknown; message?: unknown } | undefined;
    if (typeof body?.error === 'string' && body.error) return body.error;
    if (typeof error.status === 'number') return fallbacks.failed;
  }
  return fallbacks.unexpected ?? UNEXPECTED;
}

/** The HTTP status of a failed call, when the server answered. */
export const httpStatus = (error: RequestError) =>
  error && 'status' in error && typeof error.status === 'number' ? error.status : undefined;
