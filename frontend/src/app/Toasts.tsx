import { lazy, Suspense, useEffect, useSyncExternalStore } from 'react';
import { loadToastify, onToastifyAsked, toastifyAsked } from '../lib/toast';

/** The spec's toasts: top-right, closing after 5 seconds. */
const Container = lazy(() =>
  loadToastify().then(({ Slide, ToastContainer }) => ({
    default: () => <ToastContainer position="top-right" autoClose={5000} transition={Slide} newestOnTop />,
  })),
);

/**
 * The toasts' container, with react-toastify's code: asked for by the first toast, else once the
 * page has loaded and the browser is idle, so the first page neither waits for it nor runs it.
 */
export function Toasts() {
  const asked = useSyncExternalStore(onToastifyAsked, toastifyAsked);
  useEffect(() => {
    const load = () => void loadToastify();
    const idle = () => ('requestIdleCallback' in window ? requestIdleCallback(load) : setTimeout(load));
    if (document.readyState === 'complete') idle();
    else window.addEventListener('load', idle, { once: true });
    return () => window.removeEventListener('load', idle);
  }, []);
  return asked ? (
    <Suspense fallback={null}>
      <Container />
    </Suspense>
  ) : null;
}
