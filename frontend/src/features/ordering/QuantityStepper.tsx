import { useState } from 'react';

interface QuantityStepperProps {
  value: number;
  min: number;
  max: number;
  onChange: (quantity: number) => void;
  onOutOfRange: () => void;
}

/** - and + around a text input; a value outside min..max is refused and reported. */
export function QuantityStepper({ value, min, max, onChange, onOutOfRange }: QuantityStepperProps) {
  // What is being typed; null shows the current value.
  const [draft, setDraft] = useState<string | null>(null);

  const propose = (quantity: number) => {
    setDraft(null);
    if (Number.isInteger(quantity) && quantity >= min && quantity <= max) onChange(quantity);
    else onOutOfRange();
  };

  return (
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
        className="stepper__input"
        inputMode="numeric"
        aria-label="Quantity"
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
  );
}
