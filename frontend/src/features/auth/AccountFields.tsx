import { useState } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { TextField } from '../../components/Field';
import { PasswordInput } from '../../components/PasswordInput';

type AccountField = 'username' | 'email' | 'password' | 'phone';

/** A registered input and its problem, as useZodForm's `field` gives them. */
type FieldProps = UseFormRegisterReturn & { error?: string };

interface AccountFieldsProps {
  field: (name: AccountField) => FieldProps;
  /** Sign-up asks for the password twice; both fields share one show/hide toggle. */
  confirm?: FieldProps;
  phoneLabel: string;
  /** Creating another admin's account must not offer the admin's own saved details. */
  autoComplete?: boolean;
}

/** The account fields of Sign Up and New Admin (spec §2, §5). */
export function AccountFields({ field, confirm, phoneLabel, autoComplete = true }: AccountFieldsProps) {
  const [shown, setShown] = useState(false);
  const auto = (value: string) => (autoComplete ? value : 'off');
  return (
    <>
      <TextField label="Username" autoComplete={auto('username')} {...field('username')} />
      <TextField label="Email" type="email" autoComplete={auto('email')} {...field('email')} />
      <PasswordInput
        label="Password"
        autoComplete="new-password"
        shown={shown}
        onToggle={() => setShown(!shown)}
        {...field('password')}
      />
      {confirm && (
        <PasswordInput label="Confirm Password" autoComplete="new-password" shown={shown} {...confirm} />
      )}
      <TextField label={phoneLabel} type="tel" autoComplete={auto('tel')} {...field('phone')} />
    </>
  );
}
