import { useState } from 'react';
import { today } from './format';

/** The date filter and page of a list: a new search starts again at page 1. */
export function useListFilter() {
  const [filter, setFilter] = useState({ from: today(), to: today(), page: 1 });
  return {
    ...filter,
    search: (range: { from: string; to: string }) => setFilter({ ...range, page: 1 }),
    setPage: (page: number) => setFilter((f) => ({ ...f, page })),
  };
}
