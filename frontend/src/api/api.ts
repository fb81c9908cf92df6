import { createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';

/**
 * The one API slice; each feature adds its requests with api.injectEndpoints. It talks
 * to the gateway on the same origin, with the session cookie, and marks every call as
 * the spec's client does (ARCHITECTURE rule 4).
 */
export const api = createApi({
  reducerPath: 'api',
  baseQuery: fetchBaseQuery({
    baseUrl: '/',
    credentials: 'include',
    prepareHeaders: (headers) => {
      headers.set('X-Requested-With', 'XMLHttpRequest');
      return headers;
    },
  }),
  tagTypes: ['Wallet', 'Orders', 'Payments', 'User', 'Catalog'],
  endpoints: () => ({}),
});

/** A page of one's own list within the date filter (spec §2 My Orders, My Payments). */
export interface ListQuery {
  userId: string;
  page: number;
  from: string;
  to: string;
}
