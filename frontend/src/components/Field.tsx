import { useId, type ComponentProps, type ReactNode } from 'react';

/** What a control needs to be named by its label and described by its problem. */
export interface ControlProps {
  id: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
}

interface FieldProps {
  label: ReactNode;
  /** The field's problem, shown under it; the control is then marked invalid and described by it. */
  error?: string;
  /** Where the page must know the control's id; otherwise one is made. */
  id?: string;
  children: (control: ControlProps) => ReactNode;
}

/** A label, the control it names, and the control's problem under it. */
export function Field({ label, error, id, children }: FieldProps) {
  const madeId = useId();
  const controlId = id ?? madeId;
  const errorId = `${controlId}-error`;
  return (
    <div className="field">
      <label htmlFor={controlId}>{label}</label>
      {children({ id: controlId, ...(error && { 'aria-invalid': true, 'aria-describedby': errorId }) })}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

interface TextFieldProps extends ComponentProps<'input'> {
  label: ReactNode;
  error?: string;
}

/** A labelled input with its problem, if any, under it. */
export function TextField({ label, error, id, ...input }: TextFieldProps) {
  return (
    <Field label={label} error={error} id={id}>
      {(control) => <input {...input} {...control} />}
    </Field>
  );
}
