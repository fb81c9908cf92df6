import { useId, useState } from 'react';

interface QuantityStepperProps {
  value: number;
  min: number;
  max: number;
  onChange: (quantity: number) => void;
  onOutOfRange: () => void;
  /** The refused quantity's message, shown under the stepper while it lasts. */
  error?: string;
}

/** - and + around a text input; a value outside min..max is refused and reported. */
export function QuantityStepper({ value, min, max, onChange, onOutOfRange, error }: QuantityStepperProps) {
  // What is being typed; null shows the current value.
  const [draft, setDraft] = useState<string | null>(null);
  const id = useId();
  const errorId = `${id}-error`;

  const propose = (quantity: number) => {
    setDraft(null);
    if (Number.isInteger(quantity) && quantity >= min && quantity <= max) onChange(quantity);
    else onOutOfRange();
  };

  return (
    <div className="field">
      <label htmlFor={id}>Quantity</label>
      <div className="stepper">
        <button
          type="button"
          className="stepper__button"
          aria-label="Decrease quantity"
          onClick={() => propose(value - 1)}
        >
          -
        </button>
        <input
          id={id}
          className="stepper__input"
          inputMode="numeric"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          value={draft ?? String(value)}
          onChange={(e) => setDraft(e.target.value.replace(/[^\d]/g, ''))}
          onBlur={() => draft !== null && propose(Number(draft))}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              if (draft !== null) propose(Number(draft));
            }
          }}
        />
        <button
          type="button"
          className="stepper__button"
          aria-label="Increase quantity"
          onClick={() => propose(value + 1)}
        >
          +
        </button>
      </div>
      {/* Refused while typing or stepping, so it is announced, not only shown. */}
      {error && (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
