/** An error whose message is safe to show the caller, answered as `{ error }` with its status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra answer fields the spec reads next to `error` (for example `signupStatus: false`). */
    readonly fields: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, fields?: Record<string, unknown>) =>
  new HttpError(400, message, fields);
export const unauthorized = (message = 'Please sign in first.', fields?: Record<string, unknown>) =>
  new HttpError(401, message, fields);
export const forbidden = (
  message = 'You do not have permission to do this.',
  fields?: Record<string, unknown>,
) => new HttpError(403, message, fields);
export const notFound = (message = 'Not found', fields?: Record<string, unknown>) =>
  new HttpError(404, message, fields);
export const conflict = (message: string, fields?: Record<string, unknown>) =>
  new HttpError(409, message, fields);
