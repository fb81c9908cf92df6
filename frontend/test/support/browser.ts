// Callbacks given to page.evaluate run in the page, so browser tests type-check against the DOM too.
/// <reference lib="dom" />
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

export const SCREENSHOTS = path.resolve(__dirname, '..', '..', '..', 'test-output', 'screenshots');

/** The two screens every walk is seen on: a desktop and a phone. */
export const WIDTHS = [1280, 375] as const;
export type Width = (typeof WIDTHS)[number];

const SCREENS: Record<Width, BrowserContextOptions> = {
  1280: { viewport: { width: 1280, height: 800 } },
  375: { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true },
};

/** Debian's chromium (installed by infra/lib.sh ensure_browser), headless. */
export function openBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    // No sandbox: the tests may run as root. The rest keeps chromium from calling home.
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface StorePage {
  page: Page;
  /**
   * Script errors, console errors, failed requests and answers of 400 or more seen so far, one
   * line each; an answer reads `answered 404 GET /api/profile/…` (the path alone on the store's
   * own origin), so a test can name the ones it provokes (see faults in walk.ts).
   */
  problems: string[];
  close(): Promise<void>;
}

/** A page in a fresh context (no cookies or storage shared with other pages) on the store at `baseURL`. */
export async function newPage(
  browser: Browser,
  options: { baseURL: string; width: Width; context?: BrowserContextOptions },
): Promise<StorePage> {
  const context = await browser.newContext({
    ...SCREENS[options.width],
    baseURL: options.baseURL,
    ...options.context,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const store = new URL(options.baseURL).origin;
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    // Chromium logs every answer of 400 or more; the answer itself is recorded below, with its path.
    if (message.type() === 'error' && !message.text().startsWith(ANSWERED_LOG))
      problems.push(`console error: ${message.text()} (${message.location().url})`);
  });
  page.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? 'failed';
    // Leaving a page cancels what it was still loading; that is not a fault.
    if (failure !== 'net::ERR_ABORTED')
      problems.push(`request failed: ${request.method()} ${request.url()}: ${failure}`);
  });
  page.on('response', (response) => {
    if (response.status() < 400) return;
    const url = new URL(response.url());
    const where = url.origin === store ? url.pathname : `${url.origin}${url.pathname}`;
    problems.push(`answered ${response.status()} ${response.request().method()} ${where}`);
  });
  return { page, problems, close: () => context.close() };
}

const ANSWERED_LOG = 'Failed to load resource: the server responded with a status of';

/** A full-page PNG at test-output/screenshots/<name>-<width>.png; answers its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}-${page.viewportSize()?.width ?? 'unknown'}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
