import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { toast } from '../../lib/toast';
import { PasswordInput } from '../../components/PasswordInput';
import { useResetPasswordMutation } from '../../features/auth/api';
import { resetSchema } from '../../features/auth/forms';
import { errorText } from '../../lib/errors';
import { useZodForm, warnFirst } from '../../lib/forms';
import { useTitle } from '../../lib/useTitle';

export function ResetPasswordPage() {
  useTitle('Reset Password');
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const [resetPassword] = useResetPasswordMutation();
  const [shown, setShown] = useState(false);
  const [done, setDone] = useState(false);
  const form = useZodForm(resetSchema, { newPassword: '' });
  const busy = form.formState.isSubmitting;

  const submit = form.handleSubmit(async ({ newPassword }) => {
    const answer = await resetPassword({ token, newPassword });
    if ('error' in answer) {
      toast.error(
        errorText(answer.error, {
          failed: 'Password reset failed',
          unreachable: 'Failed to reset password. Please try again.',
          unexpected: 'Failed to reset password. Please try again.',
        }),
      );
      return;
    }
    setDone(true);
    toast.success(answer.data.message ?? 'Password reset successful!');
    setTimeout(() => navigate('/signin'), 2000);
  }, warnFirst);

  return (
    <section className="auth-card">
      <h1>Reset Password</h1>
      <form onSubmit={submit} noValidate>
        <fieldset disabled={busy || done}>
          <PasswordInput
            label="New Password"
            autoComplete="new-password"
            shown={shown}
            onToggle={() => setShown(!shown)}
            {...form.field('newPassword')}
          />
          <button type="submit" className="button button--wide">
            {busy ? 'Resetting...' : 'Reset Password'}
          </button>
        </fieldset>
      </form>
    </section>
  );
}
