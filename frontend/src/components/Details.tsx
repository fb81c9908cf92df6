import type { ReactNode } from 'react';

/** Labelled values, such as an order's params or a user's account details. */
export function Details({ items }: { items: [label: string, value: ReactNode][] }) {
  return (
    <dl className="params">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
