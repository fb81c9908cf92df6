import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { ReactNode } from 'react';
import { errorText, httpStatus } from '../lib/errors';
import { DateFilter } from './DateFilter';
import { Pagination } from './Pagination';
import { Spinner } from './Spinner';

interface ListPageProps<T> {
  title: string;
  /** h2 where a page shows more than one list under its own h1. */
  heading?: 'h1' | 'h2';
  /** The page of the list as RTK Query answers it. */
  query: {
    isLoading: boolean;
    error?: FetchBaseQueryError | SerializedError;
    data?: { totalPages: number };
  };
  items: T[] | undefined;
  failed: string;
  empty: string;
  /** Where a 404 means there is nothing to list (spec §8: waiting payments). */
  notFoundIsEmpty?: boolean;
  filter: {
    page: number;
    initial: { from: string; to: string };
    search: (range: { from: string; to: string }) => void;
    setPage: (page: number) => void;
  };
  children: (item: T) => ReactNode;
}

/** A paged list: the date filter, a loader, the error or empty text, the rows and the pages. */
export function ListPage<T>(props: ListPageProps<T>) {
  const {
    title,
    heading: Heading = 'h1',
    query,
    items = [],
    failed,
    empty,
    notFoundIsEmpty,
    filter,
    children,
  } = props;
  const error = notFoundIsEmpty && httpStatus(query.error) === 404 ? undefined : query.error;
  return (
    <section className="list-page">
      <Heading>{title}</Heading>
      <DateFilter onSearch={filter.search} initial={filter.initial} />
      {query.isLoading ? (
        <Spinner />
      ) : error ? (
        <p className="note note--error">
          {errorText(error, {
            failed,
            unreachable: 'Unable to reach the server.',
            unexpected: 'An unexpected error occurred.',
          })}
        </p>
      ) : !items.length ? (
        <p className="empty">{empty}</p>
      ) : (
        <ul className="rows">{items.map(children)}</ul>
      )}
      <Pagination page={filter.page} totalPages={query.data?.totalPages ?? 1} onPage={filter.setPage} />
    </section>
  );
}
