import type { ComponentProps } from 'react';
import { FaEye, FaEyeSlash } from 'react-icons/fa';
import { Field } from './Field';

interface PasswordInputProps extends ComponentProps<'input'> {
  label: string;
  shown: boolean;
  /** The show/hide toggle; fields of a group that share one leave it to the first. */
  onToggle?: () => void;
  /** The field's problem, shown under it. */
  error?: string;
}

export function PasswordInput({ label, shown, onToggle, error, id, ...input }: PasswordInputProps) {
  return (
    <Field label={label} error={error} id={id}>
      {(control) => (
        <span className="password">
          <input {...input} {...control} type={shown ? 'text' : 'password'} />
          {onToggle && (
            <button
              type="button"
              className="password__toggle"
              onClick={onToggle}
              aria-label={shown ? 'Hide password' : 'Show password'}
            >
              {shown ? <FaEyeSlash className="icon" /> : <FaEye className="icon" />}
            </button>
          )}
        </span>
      )}
    </Field>
  );
}
