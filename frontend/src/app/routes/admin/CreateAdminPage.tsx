import { toast } from '../../../lib/toast';
import { useCreateAdminMutation } from '../../../features/admin/api';
import { AccountFields } from '../../../features/auth/AccountFields';
import { adminSchema } from '../../../features/auth/forms';
import { errorText } from '../../../lib/errors';
import { useZodForm, warnFirst } from '../../../lib/forms';
import { useTitle } from '../../../lib/useTitle';

export function CreateAdminPage() {
  useTitle('New Admin');
  const [createAdmin] = useCreateAdminMutation();
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
          <AccountFields field={form.field} phoneLabel="Phone" autoComplete={false} />
          <button type="submit" className="button button--wide">
            {busy ? 'Creating...' : 'Create Admin'}
          </button>
        </fieldset>
      </form>
    </section>
  );
}
