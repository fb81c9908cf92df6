import type { Browser, Page } from 'playwright-core';
import { newPage, openBrowser, type StorePage, type Width } from './browser';
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
    async open(width: Width = 1280): Promise<StorePage> {
      if (!browser) throw new Error('chromium has not started');
      const opened = await newPage(browser, { baseURL: started().url, width });
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

/** Chromium reports each 4xx answer as a console error; those a test asks for are not faults. */
export const faults = (problems: string[]) =>
  problems.filter((p) => !/status of 4\d\d/.test(p) && !/server error: 4\d\d/.test(p));
