import { useState } from 'react';
import { toast } from '../../lib/toast';
import { TextField } from '../../components/Field';
import { useRequestResetMutation } from '../../features/auth/api';
import { resetRequestSchema } from '../../features/auth/forms';
import { errorText } from '../../lib/errors';
import { useZodForm, warnFirst } from '../../lib/forms';
import { useTitle } from '../../lib/useTitle';

export function RequestResetPage() {
  useTitle('Reset Password');
  const [requestReset] = useRequestResetMutation();
  const [sent, setSent] = useState<string>();
  const form = useZodForm(resetRequestSchema, { email: '' });
  const busy = form.formState.isSubmitting;

  const submit = form.handleSubmit(async (values) => {
    setSent(undefined);
    const answer = await requestReset(values);
    if ('error' in answer) {
      toast.error(
        errorText(answer.error, {
          failed: 'Failed to send reset link',
          unreachable: 'Failed to connect to the server',
          unexpected: 'Failed to connect to the server',
        }),
      );
      return;
    }
    setSent(answer.data.message ?? 'Check your email for the reset link.');
  }, warnFirst);

  return (
    <section className="auth-card">
      <h1>Reset Password</h1>
      <form onSubmit={submit} noValidate>
        <fieldset disabled={busy}>
          <TextField
            label="Enter your registered email"
            type="email"
            autoComplete="email"
            {...form.field('email')}
          />
          <button type="submit" className="button button--wide">
            {busy ? 'Sending...' : 'Send Reset Link'}
          </button>
        </fieldset>
      </form>
      {sent && (
        <p className="note note--success" role="status">
          {sent}
        </p>
      )}
    </section>
  );
}
