interface StatusToggleProps {
  /** What the switch turns on and off, for screen readers: 'Status of Steam'. */
  label: string;
  on: boolean;
  onToggle: (on: boolean) => void;
}

/** An availability switch (spec §4): Active or Disabled. */
export function StatusToggle({ label, on, onToggle }: StatusToggleProps) {
  return (
    <label className="switch">
      <input
        type="checkbox"
        role="switch"
        className="switch__input"
        aria-label={label}
        checked={on}
        onChange={(e) => onToggle(e.currentTarget.checked)}
      />
      <span className="switch__track" aria-hidden="true" />
      <span className={on ? 'switch__text switch__text--on' : 'switch__text'}>
        {on ? 'Active' : 'Disabled'}
      </span>
    </label>
  );
}
