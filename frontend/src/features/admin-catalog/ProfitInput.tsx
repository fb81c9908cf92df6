import type { ComponentProps } from 'react';
import { PROFIT_TYPING } from './forms';

interface ProfitInputProps extends Omit<ComponentProps<'input'>, 'value' | 'onChange'> {
  value: string;
  onChange: (value: string) => void;
}

/** A profit percentage: a keystroke that would make it anything but digits and one point is ignored. */
export function ProfitInput({ value, onChange, ...input }: ProfitInputProps) {
  return (
    <input
      {...input}
      inputMode="decimal"
      autoComplete="off"
      value={value}
      onChange={(e) => {
        if (PROFIT_TYPING.test(e.currentTarget.value)) onChange(e.currentTarget.value);
      }}
    />
  );
}
