import { useState } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { PasswordInput } from '../../components/PasswordInput';

type AccountField = 'username' | 'email' | 'password' | 'phone';

interface AccountFieldsProps {
  register: (name: AccountField) => UseFormRegisterReturn;
  /** Sign-up asks for the password twice; both fields share one show/hide toggle. */
  confirm?: UseFormRegisterReturn;
  phoneLabel: string;
  /** Creating another admin's account must not offer the admin's own saved details. */
  autoComplete?: boolean;
}

/** The account fields of Sign Up and New Admin (spec §2, §5). */
export function AccountFields({ register, confirm, phoneLabel, autoComplete = true }: AccountFieldsProps) {
  const [shown, setShown] = useState(false);
  const auto = (value: string) => (autoComplete ? value : 'off');
  return (
    <>
      <label>
        Username
        <input autoComplete={auto('username')} {...register('username')} />
      </label>
      <label>
        Email
        <input type="email" autoComplete={auto('email')} {...register('email')} />
      </label>
      <PasswordInput
        label="Password"
        autoComplete="new-password"
        shown={shown}
        onToggle={() => setShown(!shown)}
        {...register('password')}
      />
      {confirm && (
        <PasswordInput label="Confirm Password" autoComplete="new-password" shown={shown} {...confirm} />
      )}
      <label>
        {phoneLabel}
        <input type="tel" autoComplete={auto('tel')} {...register('phone')} />
      </label>
    </>
  );
}
