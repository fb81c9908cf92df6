import { startTransition, StrictMode } from 'react';
import './styles.css';

/** Lets the browser paint and answer a tap before the next part of the app starts. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve));

/**
 * The app starts in several short tasks rather than one long one: the store (Redux Toolkit), the
 * app's code (the router and layouts), the router (which asks for the first page's code at once),
 * then React's DOM, the largest file, each in a task of its own; the index page has every file
 * of theirs asked for at once (vite.config.ts). The app then renders as a transition, which React
 * does in slices of a few milliseconds.
 */
async function start(container: HTMLElement) {
  await import('./app/store');
  await nextTask();
  const { App, createRouter } = await import('./app/App');
  await nextTask();
  const router = createRouter();
  await nextTask();
  const { createRoot } = await import('react-dom/client');
  await nextTask();
  const root = createRoot(container);
  startTransition(() =>
    root.render(
      <StrictMode>
        <App router={router} />
      </StrictMode>,
    ),
  );
}

const container = document.getElementById('root');
if (!container) throw new Error('Missing #root element in index.html');
void start(container);
