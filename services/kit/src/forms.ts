import { z } from 'zod';

/**
 * The rules the storefront's forms and the server share (spec §5), with their texts word
 * for word. Plain zod and no Node APIs: the browser bundles this file too.
 */
export const formTexts = {
  allFieldsRequired: 'All fields are required',
  invalidEmail: 'Please enter a valid email address',
  shortSignupPassword: 'Password must be at least 8 characters long',
  shortResetPassword: 'Password must be at least 8 characters',
  passwordTooLong: 'Password must be at most 72 characters',
  invalidPhone: 'Please enter a valid phone number',
  contactRequired: 'Email, subject and message are required.',
} as const;

/** The spec's "simple pattern" for e-mail addresses. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD = 8;
// bcrypt reads at most 72 bytes; a longer password would be silently cut.
export const MAX_PASSWORD_BYTES = 72;
const fitsBcrypt = (password: string) => new TextEncoder().encode(password).length <= MAX_PASSWORD_BYTES;

const required = z.string({
  required_error: formTexts.allFieldsRequired,
  invalid_type_error: formTexts.allFieldsRequired,
});

export const accountFields = z.object({
  username: required
    .trim()
    .min(1, formTexts.allFieldsRequired)
    .max(50, 'Username must be at most 50 characters'),
  email: required.trim().min(1, formTexts.allFieldsRequired).max(254, formTexts.invalidEmail),
  phone: required
    .trim()
    .min(1, formTexts.allFieldsRequired)
    .max(30, formTexts.invalidPhone)
    .regex(/^[0-9+()\-\s]+$/, formTexts.invalidPhone),
  password: required.min(1, formTexts.allFieldsRequired),
});
export type AccountFields = z.infer<typeof accountFields>;

/** Format checks after presence, in the order the spec's sign-up shows them; true when they pass. */
export function checkAccount(v: AccountFields, ctx: z.RefinementCtx): boolean {
  const problem = !EMAIL_PATTERN.test(v.email)
    ? { message: formTexts.invalidEmail, path: ['email'] }
    : v.password.length < MIN_PASSWORD
      ? { message: formTexts.shortSignupPassword, path: ['password'] }
      : !fitsBcrypt(v.password)
        ? { message: formTexts.passwordTooLong, path: ['password'] }
        : undefined;
  if (problem) ctx.addIssue({ code: 'custom', ...problem });
  return !problem;
}

export const emailField = z
  .string({ required_error: formTexts.invalidEmail, invalid_type_error: formTexts.invalidEmail })
  .trim()
  .max(254, formTexts.invalidEmail)
  .regex(EMAIL_PATTERN, formTexts.invalidEmail)
  .toLowerCase();

export const resetRequestSchema = z.object({ email: emailField });

export const resetSchema = z.object({
  newPassword: z
    .string({
      required_error: formTexts.shortResetPassword,
      invalid_type_error: formTexts.shortResetPassword,
    })
    .min(MIN_PASSWORD, formTexts.shortResetPassword)
    .refine(fitsBcrypt, formTexts.passwordTooLong),
});

const contactText = (name: string, max: number) =>
  z
    .string({ required_error: formTexts.contactRequired, invalid_type_error: formTexts.contactRequired })
    .trim()
    .min(1, formTexts.contactRequired)
    .max(max, `${name} must be at most ${max} characters`);

/** The Contact Us form: email, subject and message required, the phone optional. */
export const contactSchema = z.object({
  email: emailField,
  phone: z.string().trim().max(30, 'Phone must be at most 30 characters').optional(),
  subject: contactText('Subject', 200),
  message: contactText('Message', 5000),
});

/** The spec's limits for receipts and catalogue images (§5, §9), checked by content on the server. */
export const IMAGE_MAX_BYTES = 3 * 1024 * 1024;
export const IMAGE_TEXTS = {
  wrongType: 'Only JPG/JPEG/PNG files are allowed',
  tooLarge: 'Image must be smaller than 3MB',
} as const;
/** Allowed image types and the extension each is stored under. */
export const IMAGE_TYPES = new Map([
  ['image/jpeg', 'jpg'],
  ['image/png', 'png'],
  ['image/webp', 'webp'],
]);

/** The browser's first check of a chosen image file: its declared type and its size. */
export function imageProblem(file: { type: string; size: number }): string | undefined {
  if (!IMAGE_TYPES.has(file.type)) return IMAGE_TEXTS.wrongType;
  if (file.size > IMAGE_MAX_BYTES) return IMAGE_TEXTS.tooLarge;
  return undefined;
}

export { SECTION_NAMES } from './sections';

/** Dynamic field names keep letters, digits and underscores; anything else becomes an underscore (spec §5). */
export const sanitizeFieldName = (name: string) => name.replace(/[^A-Za-z0-9_]/g, '_');
