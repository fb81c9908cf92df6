import { configureStore } from '@reduxjs/toolkit';
import { setupListeners } from '@reduxjs/toolkit/query';
import { api } from '../api/api';
import { session } from '../features/auth/session';

export const store = configureStore({
  reducer: {
    [api.reducerPath]: api.reducer,
    session: session.reducer,
  },
  middleware: (getDefaultMiddleware) => getDefaultMiddleware().concat(api.middleware),
});
// Balances and lists refresh when the tab regains focus or the network comes back.
setupListeners(store.dispatch);

export type RootState = ReturnType<typeof store.getState>;
export type AppDispatch = typeof store.dispatch;
