import type { ReactNode } from 'react';
import { Navigate, Outlet } from 'react-router-dom';
import { useSession } from '../features/auth/session';

/** 'waiting..' while the stored session is checked (spec §2). */
export const Waiting = () => <p className="waiting">waiting..</p>;

/** Signed-in customers only; a visitor is asked to sign in. */
export function RequireUser({ children }: { children?: ReactNode }) {
  const { user, loading } = useSession();
  if (loading) return <Waiting />;
  if (!user) return <Navigate to="/signin" replace />;
  return children ?? <Outlet />;
}
