import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { toast } from 'react-toastify';
import { PasswordInput } from '../../components/PasswordInput';
import { useSignUpMutation } from '../../features/auth/api';
import { signUpSchema } from '../../features/auth/forms';
import { errorText } from '../../lib/errors';
import { useZodForm, warnFirst } from '../../lib/forms';

export function SignUpPage() {
  const navigate = useNavigate();
  const [signUp] = useSignUpMutation();
  const [shown, setShown] = useState(false);
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
          <label>
            Username
            <input autoComplete="username" {...form.register('username')} />
          </label>
          <label>
            Email
            <input type="email" autoComplete="email" {...form.register('email')} />
          </label>
          <PasswordInput
            label="Password"
            autoComplete="new-password"
            shown={shown}
            onToggle={() => setShown(!shown)}
            {...form.register('password')}
          />
          <PasswordInput
            label="Confirm Password"
            autoComplete="new-password"
            shown={shown}
            {...form.register('confirmPassword')}
          />
          <label>
            Phone Number
            <input type="tel" autoComplete="tel" {...form.register('phone')} />
          </label>
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
