import { useId, useState, type ReactNode } from 'react';
import { FaChevronDown, FaChevronUp } from 'react-icons/fa';

/** A list row that opens to show its details. */
interface ExpandableProps {
  summary: ReactNode;
  children: ReactNode;
  defaultOpen?: boolean;
}

export function Expandable({ summary, children, defaultOpen = false }: ExpandableProps) {
  const [open, setOpen] = useState(defaultOpen);
  const id = useId();
  return (
    <li className={open ? 'row row--open' : 'row'}>
      <button
        type="button"
        className="row__summary"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
      >
        {summary}
        {open ? (
          <FaChevronUp className="icon" aria-hidden="true" />
        ) : (
          <FaChevronDown className="icon" aria-hidden="true" />
        )}
      </button>
      {open && (
        <div id={id} className="row__details">
          {children}
        </div>
      )}
    </li>
  );
}

/** The lowercase status as a style class; users see anything unknown as waiting (spec §4). */
export function StatusBadge({ status }: { status: string }) {
  const known = ['confirmed', 'rejected'].includes(status.toLowerCase()) ? status.toLowerCase() : 'waiting';
  return <span className={`status status--${known}`}>{status}</span>;
}
