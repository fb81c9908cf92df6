import { useTitle } from '../lib/useTitle';

/**
 * What a route shows when its code failed to load (a page chunk gone after a new release, the
 * network down) or its screen failed to render, instead of the router's own error page.
 */
export function ErrorScreen() {
  useTitle('Something went wrong');
  return (
    <section className="error-screen" role="alert">
      <h1>Something went wrong</h1>
      <p>This page could not be shown. Reload it to try again.</p>
      <button type="button" className="button" onClick={() => window.location.reload()}>
        Reload
      </button>
    </section>
  );
}

/** The last resort, when the layout itself failed: the same screen without the header. */
export function RootErrorScreen() {
  return (
    <main className="main">
      <ErrorScreen />
    </main>
  );
}
