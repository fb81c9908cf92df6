import type { ToastOptions } from 'react-toastify';

type Toastify = typeof import('react-toastify');
type Kind = 'success' | 'error' | 'warning' | 'info';

let toastify: Promise<Toastify> | undefined;
const waiting = new Set<() => void>();

/**
 * react-toastify's code, asked for once: by the first toast, or once the page has loaded (see
 * app/Toasts.tsx), never with the first page's code. Whoever waits for it hears that it is asked.
 */
export function loadToastify(): Promise<Toastify> {
  if (!toastify) {
    toastify = import('react-toastify');
    for (const wake of waiting) wake();
  }
  return toastify;
}

/** Whether react-toastify has been asked for, for the container to render (useSyncExternalStore). */
export const toastifyAsked = () => toastify !== undefined;
export function onToastifyAsked(wake: () => void): () => void {
  waiting.add(wake);
  return () => waiting.delete(wake);
}

const show =
  (kind: Kind) =>
  (text: string, options?: ToastOptions): void => {
    // Asked before the container is there, react-toastify keeps the toast until it is.
    void loadToastify().then(({ toast }) => toast[kind](text, options));
  };

/** The store's toasts, as react-toastify's: success, error, warning and info. */
export const toast = {
  success: show('success'),
  error: show('error'),
  warning: show('warning'),
  info: show('info'),
};
