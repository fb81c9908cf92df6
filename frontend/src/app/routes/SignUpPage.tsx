import { Link, useNavigate } from 'react-router-dom';
import { toast } from '../../lib/toast';
import { AccountFields } from '../../features/auth/AccountFields';
import { useSignUpMutation } from '../../features/auth/api';
import { signUpSchema } from '../../features/auth/forms';
import { errorText } from '../../lib/errors';
import { useZodForm, warnFirst } from '../../lib/forms';
import { useTitle } from '../../lib/useTitle';

export function SignUpPage() {
  useTitle('Sign Up');
  const navigate = useNavigate();
  const [signUp] = useSignUpMutation();
  const form = useZodForm(signUpSchema, {
    username: '',
    email: '',
    password: '',
    confirmPassword: '',
    phone: '',
  });
  const busy = form.formState.isSubmitting;

  const submit = form.handleSubmit(async ({ username, email, password, phone }) => {
    const answer = await signUp({ username, email, password, phone });
    if ('error' in answer) {
      toast.error(errorText(answer.error, { failed: 'Registration failed. Please try again.' }));
      return;
    }
    toast.success(answer.data.message ?? 'Registration successful! Please sign in.');
    navigate('/signin');
  }, warnFirst);

  return (
    <section className="auth-card">
      <h1>Sign Up</h1>
      <form onSubmit={submit} noValidate>
        <fieldset disabled={busy}>
          <AccountFields
            field={form.field}
            confirm={form.field('confirmPassword')}
            phoneLabel="Phone Number"
          />
          <button type="submit" className="button button--wide">
            {busy ? 'Signing up...' : 'Sign Up'}
          </button>
        </fieldset>
      </form>
      <p>
        Already have an account? <Link to="/signin">Sign In</Link>
      </p>
    </section>
  );
}
