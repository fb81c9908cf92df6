import { contactSchema } from '@raseed/forms';
import { toast } from '../../lib/toast';
import { Field, TextField } from '../../components/Field';
import { useSendContactMutation } from '../../features/contact/api';
import { errorText } from '../../lib/errors';
import { useZodForm, warnFirst } from '../../lib/forms';
import { useTitle } from '../../lib/useTitle';

export function ContactPage() {
  useTitle('Contact Us');
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
          <TextField label="Email" type="email" autoComplete="email" required {...form.field('email')} />
          <TextField label="Phone" type="tel" autoComplete="tel" {...form.field('phone')} />
          <TextField label="Subject" required {...form.field('subject')} />
          <Field label="Message" error={form.errorOf('message')}>
            {(control) => <textarea rows={6} required {...form.register('message')} {...control} />}
          </Field>
          <button type="submit" className="button button--wide">
            {busy ? 'Sending...' : 'Send Message'}
          </button>
        </fieldset>
      </form>
    </section>
  );
}
