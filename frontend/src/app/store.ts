import { configureStore } from '@reduxjs/toolkit';
import { setupListeners } from '@reduxjs/toolkit/query';
import { api } from '../api/api';
import { session } from '../features/auth/session';
import { live } from '../features/live/live';

export const store = configureStore({
  reducer: {
    [api.reducerPath]: api.reducer,
    session: session.reducer,
    live: live.reducer,
  },
  middleware: (getDefaultMiddleware) => getDefaultMiddleware().concat(api.middleware),
});
// A query that asks for it (the header's wallet figures) is asked again when the tab regains focus.
setupListeners(store.dispatch);

export type RootState = ReturnType<typeof store.getState>;
export type AppDispatch = typeof store.dispatch;
