import { Suspense, useEffect } from 'react';
import { useDispatch } from 'react-redux';
import { Outlet, useLocation } from 'react-router-dom';
import { Spinner } from '../components/Spinner';
import { useUserQuery } from '../features/auth/api';
import { checked, signedOut, useSession } from '../features/auth/session';
import { useLiveUpdates } from '../features/live/live';
import { httpStatus } from '../lib/errors';
import { toast } from '../lib/toast';
import { Header } from './Header';
import { Toasts } from './Toasts';

/** The page scrolls to the top on a new route unless the URL names a place on it. */
function ScrollToTop() {
  const { pathname, hash } = useLocation();
  useEffect(() => {
    if (!hash) window.scrollTo(0, 0);
  }, [pathname, hash]);
  return null;
}

/** Checks a stored session with the server once; an invalid one signs the user out. */
function SessionCheck() {
  const { user, loading } = useSession();
  const dispatch = useDispatch();
  const { isSuccess, error } = useUserQuery(user?.id ?? '', { skip: !user || !loading });
  useEffect(() => {
    if (isSuccess) dispatch(checked());
    if (!error) return;
    const status = httpStatus(error);
    if (status === 401) dispatch(signedOut());
    else if (status === 404) {
      toast.error('User not found');
      dispatch(signedOut());
    } else {
      toast.error('Failed to fetch user data');
      dispatch(checked());
    }
  }, [isSuccess, error, dispatch]);
  return null;
}

/** The signed-in tab's live stream, once its session has been checked. */
function LiveUpdates() {
  const { user, loading } = useSession();
  useLiveUpdates(loading ? undefined : user?.id);
  return null;
}

export function RootLayout() {
  return (
    <>
      <ScrollToTop />
      <SessionCheck />
      <LiveUpdates />
      <Header />
      <main className="main">
        <Suspense fallback={<Spinner />}>
          <Outlet />
        </Suspense>
      </main>
      <Toasts />
    </>
  );
}
