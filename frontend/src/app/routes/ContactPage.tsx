import { contactSchema } from '@raseed/forms';
import { toast } from 'react-toastify';
import { useSendContactMutation } from '../../features/contact/api';
import { errorText } from '../../lib/errors';
import { useZodForm, warnFirst } from '../../lib/forms';

export function ContactPage() {
  const [sendContact] = useSendContactMutation();
  const form = useZodForm(contactSchema, { email: '', phone: '', subject: '', message: '' });
  const busy = form.formState.isSubmitting;

  const submit = form.handleSubmit(async (values) => {
    const answer = await sendContact(values);
    if ('error' in answer) {
      toast.error(errorText(answer.error, { failed: 'Your message could not be sent. Please try again.' }));
      return;
    }
    toast.success(answer.data.message);
    form.reset();
  }, warnFirst);

  return (
    <section className="auth-card">
      <h1>Contact Us</h1>
      <form onSubmit={submit} noValidate>
        <fieldset disabled={busy}>
          <label>
            Email
            <input type="email" autoComplete="email" required {...form.register('email')} />
          </label>
          <label>
            Phone
            <input type="tel" autoComplete="tel" {...form.register('phone')} />
          </label>
          <label>
            Subject
            <input required {...form.register('subject')} />
          </label>
          <label>
            Message
            <textarea rows={6} required {...form.register('message')} />
          </label>
          <button type="submit" className="button button--wide">
            {busy ? 'Sending...' : 'Send Message'}
          </button>
        </fieldset>
      </form>
    </section>
  );
}
