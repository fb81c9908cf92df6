import { accountFields, checkAccount, formTexts, pageSchema, z } from '@raseed/kit';

export { contactSchema, resetRequestSchema, resetSchema } from '@raseed/kit';

/** The spec's texts (§5), answered by the server as well as shown by the browser. */
export const texts = {
  ...formTexts,
  contactSent: 'Your message has been sent. We will get back to you soon.',
  invalidPercentage: 'Please enter a valid percentage (greater than 0)',
  emptySearch: 'Please enter a search query.',
  noProfilePermission: 'You do not have permission to access this profile.',
  userNotFound: 'User not found',
  resetFailed: 'Password reset failed',
  resetSent: 'Check your email for the reset link.',
  resetDone: 'Password reset successful!',
  emailPreference: 'email_notifications must be true or false.',
} as const;

/** Sign-up and create-admin share the fields and texts; presence is checked before format. */
export const accountSchema = accountFields
  .superRefine((v, ctx) => {
    checkAccount(v, ctx);
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

/** The search, paged like the list (the answer stays the spec's list; the totals are headers). */
export const searchSchema = pageSchema.extend({
  query: z
    .string({ required_error: texts.emptySearch, invalid_type_error: texts.emptySearch })
    .trim()
    .min(1, texts.emptySearch)
    .max(100),
});

/** The profile's e-mail switch: top-up and order e-mails on or off. */
const emailPreference = { required_error: texts.emailPreference, invalid_type_error: texts.emailPreference };
export const emailPreferencesSchema = z.object(
  { email_notifications: z.boolean(emailPreference) },
  emailPreference,
);

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
