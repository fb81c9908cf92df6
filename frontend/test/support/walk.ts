import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { checkA11y } from './a11y';
import { newPage, openBrowser, screenshot, type StorePage, type Width } from './browser';
import { startStore, type Store } from './store';

/**
 * What every browser test file shares: the whole store and one chromium for the file,
 * pages opened on it (closed at the end), and the steps every walk takes.
 */
export function walkTheStore() {
  let store: Store | undefined;
  let browser: Browser | undefined;
  const pages: StorePage[] = [];

  beforeAll(async () => {
    [browser, store] = await Promise.all([openBrowser(), startStore()]);
  });

  afterAll(async () => {
    await Promise.all(pages.map((p) => p.close()));
    await browser?.close();
    await store?.stop();
  });

  const started = (): Store => {
    if (!store) throw new Error('the store has not started');
    return store;
  };

  return {
    store: started,
    /** A page in a fresh context (no session) on the store, at a desktop's or a phone's width. */
    async open(width: Width = 1280, context?: BrowserContextOptions): Promise<StorePage> {
      if (!browser) throw new Error('chromium has not started');
      const opened = await newPage(browser, { baseURL: started().url, width, context });
      pages.push(opened);
      return opened;
    },
    /** Signs in through the Sign In page and waits for the home page. */
    async signIn(page: Page, email: string, password: string): Promise<void> {
      await page.goto('/signin');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password', { exact: true }).fill(password);
      await page.getByRole('button', { name: 'Sign In' }).click();
      await see(page, 'Sign in successful!');
      await page.waitForURL(`${started().url}/`);
    },
  };
}

/** Waits until the text is on the page (a toast, a label, a row). */
export const see = (page: Page, text: string | RegExp, timeout = 15_000) =>
  page.getByText(text).first().waitFor({ timeout });

/**
 * One screen of a per-width walk: once its key content shows (a list's first row, a form's
 * submit button) and nothing is loading, a screenshot and the accessibility check.
 */
export async function look(page: Page, name: string, key: Locator): Promise<void> {
  await key.first().waitFor();
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  await checkA11y(page, name);
}

/**
 * The problems a page met, less those its test provoked on purpose: each named exactly, as
 * newPage words it (`answered 401 POST /api/signin`), or by a pattern where it holds an id.
 * Any other answer of 400 or more is a fault: a screen whose data call answers 401, 403 or 404
 * fails its walk.
 */
export const faults = (problems: string[], provoked: (string | RegExp)[] = []) =>
  problems.filter(
    (p) => !provoked.some((known) => (typeof known === 'string' ? p === known : known.test(p))),
  );

/** Asks until the answer passes the check (a service learns of a change from its event). */
export async function poll<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
