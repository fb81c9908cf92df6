import { createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';

// The one API slice; each feature adds its requests with api.injectEndpoints.
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
  endpoints: () => ({}),
});
