import { EMAIL_PATTERN, z } from '@raseed/kit';

/** The spec's texts (§5), answered by the server as well as shown by the browser. */
export const texts = {
  contactRequired: 'Email, subject and message are required.',
  contactSent: 'Your message has been sent. We will get back to you soon.',
  allFieldsRequired: 'All fields are required',
  invalidEmail: 'Please enter a valid email address',
  shortSignupPassword: 'Password must be at least 8 characters long',
  shortResetPassword: 'Password must be at least 8 characters',
  invalidPercentage: 'Please enter a valid percentage (greater than 0)',
  emptySearch: 'Please enter a search query.',
  noProfilePermission: 'You do not have permission to access this profile.',
  userNotFound: 'User not found',
  resetFailed: 'Password reset failed',
  resetSent: 'Check your email for the reset link.',
  resetDone: 'Password reset successful!',
} as const;

export const MIN_PASSWORD = 8;
// bcrypt reads at most 72 bytes; a longer password would be silently cut.
export const MAX_PASSWORD_BYTES = 72;
const tooLong = 'Password must be at most 72 characters';
const fitsBcrypt = (password: string) => Buffer.byteLength(password) <= MAX_PASSWORD_BYTES;

const required = z.string({
  required_error: texts.allFieldsRequired,
  invalid_type_error: texts.allFieldsRequired,
});

const accountFields = z.object({
  username: required.trim().min(1, texts.allFieldsRequired).max(50, 'Username must be at most 50 characters'),
  email: required.trim().min(1, texts.allFieldsRequired).max(254, texts.invalidEmail),
  phone: required
    .trim()
    .min(1, texts.allFieldsRequired)
    .max(30, 'Please enter a valid phone number')
    .regex(/^[0-9+()\-\s]+$/, 'Please enter a valid phone number'),
  password: required.min(1, texts.allFieldsRequired),
});

/** Sign-up and create-admin share the fields and texts; presence is checked before format. */
export const accountSchema = accountFields
  .superRefine((v, ctx) => {
    if (!EMAIL_PATTERN.test(v.email)) ctx.addIssue({ code: 'custom', message: texts.invalidEmail });
    else if (v.password.length < MIN_PASSWORD)
      ctx.addIssue({ code: 'custom', message: texts.shortSignupPassword });
    else if (!fitsBcrypt(v.password)) ctx.addIssue({ code: 'custom', message: tooLong });
  })
  .transform((v) => ({ ...v, email: v.email.toLowerCase() }));

export type AccountInput = z.infer<typeof accountSchema>;

const credential = z.string({
  required_error: 'Email and password are required',
  invalid_type_error: 'Email and password are required',
});
export const signInSchema = z.object({
  email: credential.trim().min(1, 'Email and password are required').max(254).toLowerCase(),
  password: credential.min(1, 'Email and password are required').max(1024, 'Invalid email or password'),
});

export const resetRequestSchema = z.object({
  email: z
    .string({ required_error: texts.invalidEmail, invalid_type_error: texts.invalidEmail })
    .trim()
    .max(254, texts.invalidEmail)
    .regex(EMAIL_PATTERN, texts.invalidEmail)
    .toLowerCase(),
});

export const resetSchema = z.object({
  newPassword: z
    .string({ required_error: texts.shortResetPassword, invalid_type_error: texts.shortResetPassword })
    .min(MIN_PASSWORD, texts.shortResetPassword)
    .refine(fitsBcrypt, tooLong),
});

/** A percentage greater than 0 (at most 100) sets the discount; null removes it. */
export const discountSchema = z.object({
  user_id: z.string({ required_error: 'user_id is required', invalid_type_error: 'user_id is required' }),
  percentage: z
    .number({ invalid_type_error: texts.invalidPercentage, required_error: texts.invalidPercentage })
    .gt(0, texts.invalidPercentage)
    .max(100, texts.invalidPercentage)
    .nullable(),
  // The spec's client sends its payment sums along; the server marks the point itself.
  userPaymentSums: z.unknown().optional(),
});

export const searchSchema = z.object({
  query: z
    .string({ required_error: texts.emptySearch, invalid_type_error: texts.emptySearch })
    .trim()
    .min(1, texts.emptySearch)
    .max(100),
});

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const contactText = (name: string, max: number) =>
  z
    .string({ required_error: texts.contactRequired, invalid_type_error: texts.contactRequired })
    .trim()
    .min(1, texts.contactRequired)
    .max(max, `${name} must be at most ${max} characters`);

/** The Contact Us form: email, subject and message required, the phone optional. */
export const contactSchema = z.object({
  email: resetRequestSchema.shape.email,
  phone: z.string().trim().max(30, 'Phone must be at most 30 characters').optional(),
  subject: contactText('Subject', 200),
  message: contactText('Message', 5000),
});
