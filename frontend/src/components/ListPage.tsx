import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { ReactNode } from 'react';
import { errorText } from '../lib/errors';
import { DateFilter } from './DateFilter';
import { Pagination } from './Pagination';
import { Spinner } from './Spinner';

interface ListPageProps<T> {
  title: string;
  /** A page of the list as RTK Query answers it. */
  result: {
    isLoading: boolean;
    isError: boolean;
    error?: FetchBaseQueryError | SerializedError;
    items: T[];
    totalPages: number;
  };
  failed: string;
  empty: string;
  filter: {
    page: number;
    initial: { from: string; to: string };
    search: (range: { from: string; to: string }) => void;
    setPage: (page: number) => void;
  };
  children: (item: T) => ReactNode;
  /** Shown between the filter and the list, such as a search box. */
  toolbar?: ReactNode;
}

/** One's own list: the date filter, a loader, the error or empty text, the rows and the pages. */
export function ListPage<T>({ title, result, failed, empty, filter, children }: ListPageProps<T>) {
  return (
    <section className="list-page">
      <h1>{title}</h1>
      <DateFilter onSearch={filter.search} initial={filter.initial} />
      {result.isLoading ? (
        <Spinner />
      ) : result.isError ? (
        <p className="note note--error">
          {errorText(result.error, {
            failed,
            unreachable: 'Unable to reach the server.',
            unexpected: 'An unexpected error occurred.',
          })}
        </p>
      ) : !result.items.length ? (
        <p className="empty">{empty}</p>
      ) : (
        <ul className="rows">{result.items.map(children)}</ul>
      )}
      <Pagination page={filter.page} totalPages={result.totalPages} onPage={filter.setPage} />
    </section>
  );
}
