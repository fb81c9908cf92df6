import type { ReactNode } from 'react';

/** An Arabic label inside the English page, laid out right to left. */
export function Arabic({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <span lang="ar" dir="rtl" className={className}>
      {children}
    </span>
  );
}

export const REMAINING_DEBT = 'الدين المتبقي';
