import { FaRedo } from 'react-icons/fa';

/** Asks again for something that failed to load; `what` completes the name for screen readers. */
export function RetryButton({ onRetry, what }: { onRetry: () => void; what: string }) {
  return (
    <button type="button" className="button button--ghost button--small" onClick={onRetry}>
      <FaRedo aria-hidden="true" /> Retry<span className="visually-hidden"> {what}</span>
    </button>
  );
}
