import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { jwtDecode } from 'jwt-decode';
import { useSelector } from 'react-redux';

/** The session user, from the sign-in token's claims (spec §3). */
export interface SessionUser {
  id: string;
  username: string;
  email: string;
  role: 'admin' | 'user';
  phone: string;
  percentage: number | null;
  authorized: boolean;
}

const STORAGE_KEY = 'userData';

function storedUser(): SessionUser | null {
  try {
    const user = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as SessionUser | null;
    return user?.authorized && user.id ? user : null;
  } catch {
    return null;
  }
}

/** The claims a sign-in answer's token carries; the cookie itself is httpOnly. */
export function userFromToken(token: string): SessionUser {
  return jwtDecode<SessionUser>(token);
}

interface SessionState {
  user: SessionUser | null;
  /** True until the stored session has been checked with the server. */
  loading: boolean;
}

const initial = storedUser();

export const session = createSlice({
  name: 'session',
  initialState: { user: initial, loading: initial !== null } as SessionState,
  reducers: {
    signedIn(state, action: PayloadAction<SessionUser>) {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(action.payload));
      state.user = action.payload;
      state.loading = false;
    },
    signedOut(state) {
      localStorage.removeItem(STORAGE_KEY);
      state.user = null;
      state.loading = false;
    },
    checked(state) {
      state.loading = false;
    },
    discountSet(state, action: PayloadAction<number | null>) {
      if (!state.user) return;
      state.user.percentage = action.payload;
      localStorage.setItem(STORAGE_KEY, JSON.stringify(state.user));
    },
  },
});

export const { signedIn, signedOut, checked, discountSet } = session.actions;

/** The signed-in user and whether the stored session is still being checked. */
export const useSession = () => useSelector((state: { session: SessionState }) => state.session);
