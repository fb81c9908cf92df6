import { parseInput, withTrace, z, type ApiRoutes } from '@raseed/kit';
import type { Model } from 'mongoose';
import type { ContactMessage } from '../data/messages';
import type { AuthDeps } from '../deps';
import { contactSchema, texts } from '../domain/rules';
import { contactEmail } from '../jobs/email';

/**
 * The Contact Us form: the message is stored first, then e-mailed to every admin through the
 * e-mail job (retried with backoff), so a mail outage loses nothing.
 */
export function contactRoutes(api: ApiRoutes, deps: AuthDeps & { messages: Model<ContactMessage> }): void {
  api.route(
    {
      method: 'post',
      path: '/api/contact',
      summary: 'Sends a message from the Contact Us form to the admins',
      access: 'public',
      body: contactSchema,
      status: 201,
      answer: z.object({ success: z.boolean(), message: z.string() }),
    },
    async (req, res) => {
      const input = parseInput(contactSchema, req.body, { success: false });
      const [stored] = await deps.messages.create([
        { ...input, phone: input.phone || null, createdAt: new Date() },
      ]);
      const id = stored!._id.toString();
      const admins = await deps.users.adminEmails();
      await deps.emails.addBulk(
        admins.map((to, i) => ({
          name: 'contact',
          data: withTrace(contactEmail(to, input)),
          opts: { jobId: `contact-${id}-${i}` },
        })),
      );
      res.status(201).json({ success: true, message: texts.contactSent });
    },
  );
}
