import { useState } from 'react';
import { useDispatch } from 'react-redux';
import { Link, Navigate, useNavigate } from 'react-router-dom';
import { toast } from '../../lib/toast';
import { TextField } from '../../components/Field';
import { PasswordInput } from '../../components/PasswordInput';
import { useSignInMutation } from '../../features/auth/api';
import { signInSchema } from '../../features/auth/forms';
import { signedIn, useSession, userFromToken } from '../../features/auth/session';
import { errorText, httpStatus } from '../../lib/errors';
import { useZodForm } from '../../lib/forms';
import { useTitle } from '../../lib/useTitle';

export function SignInPage() {
  useTitle('Sign In');
  const { user } = useSession();
  const dispatch = useDispatch();
  const navigate = useNavigate();
  const [signIn] = useSignInMutation();
  const [shown, setShown] = useState(false);
  const form = useZodForm(signInSchema, { email: '', password: '' });
  const busy = form.formState.isSubmitting;

  if (user) return <Navigate to="/" replace />;

  const submit = form.handleSubmit(async (values) => {
    const answer = await signIn(values);
    if ('error' in answer) {
      const text = errorText(answer.error, { failed: 'An error occurred during sign in' });
      toast.warning(text);
      // Refused credentials are shown at the field to fix: the e-mail when it is blank, else the password.
      const status = httpStatus(answer.error);
      if (status === 400 || status === 401) {
        form.setError(values.email.trim() ? 'password' : 'email', { message: text });
      }
      return;
    }
    dispatch(signedIn(userFromToken(answer.data.token)));
    toast.success('Sign in successful!');
    navigate('/');
  });

  return (
    <section className="auth-card">
      <h1>Sign In</h1>
      <form onSubmit={submit} noValidate>
        <fieldset disabled={busy}>
          <TextField label="Email" type="email" autoComplete="email" {...form.field('email')} />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            shown={shown}
            onToggle={() => setShown(!shown)}
            {...form.field('password')}
          />
          <Link to="/request-reset-password" className="auth-card__aside">
            Forgot Password?
          </Link>
          <button type="submit" className="button button--wide">
            {busy ? 'Signing in...' : 'Sign In'}
          </button>
        </fieldset>
      </form>
      <p>
        Don&apos;t have an account? <Link to="/signup">Sign Up</Link>
      </p>
    </section>
  );
}
