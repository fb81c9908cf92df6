import { currentUser, notFound, parseInput, z, type ApiRoutes } from '@raseed/kit';
import type { AuthDeps } from '../deps';
import { emailPreferencesSchema, texts } from '../domain/rules';

const answer = z.object({
  success: z.boolean(),
  email_notifications: z
    .boolean()
    .openapi({ description: 'Whether top-up and order e-mails are sent; password resets always are' }),
});

/** The signed-in user's own e-mail preference, read and changed on the profile page. */
export function emailPreferenceRoutes(api: ApiRoutes, deps: AuthDeps): void {
  const { users } = deps;

  api.route(
    {
      method: 'get',
      path: '/api/users/me/emails',
      summary: 'Whether the signed-in user gets e-mails about their top-ups and orders',
      access: 'user',
      answer,
    },
    async (req, res) => {
      const user = await users.findById(currentUser(req).id);
      if (!user) throw notFound(texts.userNotFound, { success: false });
      res.json({ success: true, email_notifications: user.emailNotifications !== false });
    },
  );

  api.route(
    {
      method: 'put',
      path: '/api/users/me/emails',
      summary:
        "Turns the signed-in user's top-up and order e-mails on or off (password-reset e-mails and replies to their messages still come)",
      access: 'user',
      body: emailPreferencesSchema,
      answer,
    },
    async (req, res) => {
      const failed = { success: false };
      const input = parseInput(emailPreferencesSchema, req.body, failed);
      if (!(await users.setEmailNotifications(currentUser(req).id, input.email_notifications)))
        throw notFound(texts.userNotFound, failed);
      res.json({ success: true, email_notifications: input.email_notifications });
    },
  );
}
