export type Decision = 'confirmed' | 'rejected';

interface DecisionButtonsProps {
  /** What confirming is called on this screen: Accept for orders, Confirm for top-ups. */
  confirmLabel: string;
  busy: boolean;
  onDecide: (action: Decision) => void;
}

/** An admin's two answers to a waiting order or top-up. */
export function DecisionButtons({ confirmLabel, busy, onDecide }: DecisionButtonsProps) {
  return (
    <div className="modal__actions">
      <button type="button" className="button" disabled={busy} onClick={() => onDecide('confirmed')}>
        {confirmLabel}
      </button>
      <button
        type="button"
        className="button button--danger"
        disabled={busy}
        onClick={() => onDecide('rejected')}
      >
        Reject
      </button>
    </div>
  );
}
