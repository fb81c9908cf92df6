import { useId, type ComponentProps } from 'react';
import { FaEye, FaEyeSlash } from 'react-icons/fa';

interface PasswordInputProps extends ComponentProps<'input'> {
  label: string;
  shown: boolean;
  /** The show/hide toggle; fields of a group that share one leave it to the first. */
  onToggle?: () => void;
}

export function PasswordInput({ label, shown, onToggle, ...input }: PasswordInputProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <span className="password">
        <input {...input} id={id} type={shown ? 'text' : 'password'} />
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
    </div>
  );
}
