import { accountFields, checkAccount, formTexts, resetRequestSchema, resetSchema } from '@raseed/forms';
import { z } from 'zod';

/** Sign-up: the server's account rules, plus the confirmation only the browser sees. */
export const signUpSchema = accountFields
  .extend({
    confirmPassword: z
      .string({ required_error: formTexts.allFieldsRequired })
      .min(1, formTexts.allFieldsRequired),
  })
  .superRefine((v, ctx) => {
    if (checkAccount(v, ctx) && v.password !== v.confirmPassword) {
      ctx.addIssue({ code: 'custom', message: 'Passwords do not match', path: ['confirmPassword'] });
    }
  });

/** Sign-in has no client checks (spec §5). */
export const signInSchema = z.object({ email: z.string(), password: z.string() });

export { resetRequestSchema, resetSchema };

/** Create Admin: the same fields and texts as sign-up, without the confirmation. */
export const adminSchema = accountFields.superRefine((v, ctx) => {
  checkAccount(v, ctx);
});
