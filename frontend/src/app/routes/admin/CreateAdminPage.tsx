import { toast } from 'react-toastify';
import { useCreateAdminMutation } from '../../../features/admin/api';
import { adminSchema } from '../../../features/auth/forms';
import { PasswordInput } from '../../../components/PasswordInput';
import { errorText } from '../../../lib/errors';
import { useZodForm, warnFirst } from '../../../lib/forms';
import { useState } from 'react';

export function CreateAdminPage() {
  const [createAdmin] = useCreateAdminMutation();
  const [shown, setShown] = useState(false);
  const form = useZodForm(adminSchema, { username: '', email: '', password: '', phone: '' });
  const busy = form.formState.isSubmitting;

  const submit = form.handleSubmit(async (values) => {
    const answer = await createAdmin(values);
    if ('error' in answer) {
      toast.error(errorText(answer.error, { failed: 'Failed to create admin. Please try again.' }));
      return;
    }
    toast.success(answer.data.message);
    form.reset();
  }, warnFirst);

  return (
    <section className="auth-card">
      <h1>New Admin</h1>
      <form onSubmit={submit} noValidate>
        <fieldset disabled={busy}>
          <label>
            Username
            <input autoComplete="off" {...form.register('username')} />
          </label>
          <label>
            Email
            <input type="email" autoComplete="off" {...form.register('email')} />
          </label>
          <PasswordInput
            label="Password"
            autoComplete="new-password"
            shown={shown}
            onToggle={() => setShown(!shown)}
            {...form.register('password')}
          />
          <label>
            Phone
            <input type="tel" autoComplete="off" {...form.register('phone')} />
          </label>
          <button type="submit" className="button button--wide">
            {busy ? 'Creating...' : 'Create Admin'}
          </button>
        </fieldset>
      </form>
    </section>
  );
}
