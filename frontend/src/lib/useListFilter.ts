import { useState } from 'react';
import { today } from './format';

/**
 * The date filter and page of a list: a new search starts again at page 1. Lists start at
 * today, except the admin's waiting lists, which start with every date (`everyDate`).
 */
export function useListFilter(options: { everyDate?: boolean } = {}) {
  const initial = options.everyDate ? { from: '', to: '' } : { from: today(), to: today() };
  const [filter, setFilter] = useState({ ...initial, page: 1 });
  return {
    ...filter,
    initial,
    /** The bounds as query parameters: an empty one is left out. */
    range: { from: filter.from || undefined, to: filter.to || undefined },
    search: (range: { from: string; to: string }) => setFilter({ ...range, page: 1 }),
    setPage: (page: number) => setFilter((f) => ({ ...f, page })),
  };
}
