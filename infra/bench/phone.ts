/**
 * The storefront on a phone: Lighthouse's default mobile run (a mid-range phone on slow 4G
 * with its CPU 4× slower, throttling simulated from one unthrottled load) on the home page, a
 * category page and Sign In, served by the gateway in front of the whole store. One run per
 * page, so a score can move a few points from one bench to the next. Low scores are printed,
 * never thrown; without chromium the section says so and is skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Result } from 'lighthouse';
import { version as LIGHTHOUSE_VERSION } from 'lighthouse/package.json';
import { startLoadStore } from '../cluster/load';
import { untilIdle } from './cpu';
import type { Report as GrownReport } from './grown';
import type { App } from '../cluster';

/** How the bench prints a figure (see grown.ts). */
type Report = Pick<GrownReport, 'heading' | 'line'>;

const CHROMIUM = process.env.CHROME_PATH || '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** A category of the simulator's catalogue with products, as the Cards section links to it. */
const CATEGORY = 'Steam';
const PAGES = [
  { name: 'home', path: '/' },
  { name: 'category', path: `/category/${encodeURIComponent(CATEGORY)}` },
  { name: 'sign-in', path: '/signin' },
];
/** Each run's full report, to open in a browser. */
const REPORTS = path.resolve(__dirname, '../../test-output/lighthouse');

const MIN_SCORE = 95;
const FCP_MS = 1800;
const LCP_MS = 2500;
/** Lighthouse's own marks for a good blocking time and layout shift. */
const TBT_MS = 200;
const CLS = 0.1;

const mark = (met: boolean) => (met ? '✓' : '✗');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** A page's scores and figures, each beside its target. */
function pageLines(report: Report, page: string, lhr: Result) {
  const score = (category: string, target: number) => {
    const value = lhr.categories[category]?.score;
    if (value == null) return 'not measured';
    const points = Math.round(value * 100);
    return `${points}  (target ${target}: ${mark(points >= target)})`;
  };
  const time = (audit: string, target: number) => {
    const ms = lhr.audits[audit]?.numericValue;
    if (ms === undefined) return 'not measured';
    return `${seconds(ms)}  (${((ms / target) * 100).toFixed(0)}% of the ${seconds(target)} target ${mark(ms <= target)})`;
  };
  const tbt = lhr.audits['total-blocking-time']?.numericValue;
  const cls = lhr.audits['cumulative-layout-shift']?.numericValue;
  const unused = lhr.audits['unused-javascript'];
  const unusedBytes = unused?.details?.type === 'opportunity' ? (unused.details.overallSavingsBytes ?? 0) : 0;
  report.line(`${page}: performance`, score('performance', MIN_SCORE));
  report.line(`${page}: first contentful paint`, time('first-contentful-paint', FCP_MS));
  report.line(`${page}: largest contentful paint`, time('largest-contentful-paint', LCP_MS));
  report.line(
    `${page}: total blocking time`,
    tbt === undefined
      ? 'not measured'
      : `${tbt.toFixed(0)} ms  (good below ${TBT_MS} ms: ${mark(tbt <= TBT_MS)})`,
  );
  report.line(
    `${page}: cumulative layout shift`,
    cls === undefined ? 'not measured' : `${cls.toFixed(3)}  (good below ${CLS}: ${mark(cls <= CLS)})`,
  );
  report.line(
    `${page}: unused JavaScript`,
    unused
      ? `${(unusedBytes / 1024).toFixed(0)} KiB  (no script Lighthouse would trim: ${mark(unused.score === 1)})`
      : 'not measured',
  );
  report.line(`${page}: accessibility`, score('accessibility', 100));
  report.line(`${page}: best practices`, score('best-practices', 100));
  report.line(`${page}: SEO`, score('seo', 100));
}

/** Waits until the catalogue has synced the simulator's products of CATEGORY (at the catalogue's start). */
async function catalogueSynced(gatewayUrl: string): Promise<void> {
  const url = `${gatewayUrl}/api/catalog/category/${encodeURIComponent(CATEGORY)}`;
  for (const end = Date.now() + 60_000; Date.now() < end;) {
    const res = await fetch(url).catch(() => undefined);
    const body = res?.ok ? ((await res.json()) as { products?: unknown[] }) : undefined;
    if (body?.products?.length) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the catalogue has no products in ${CATEGORY} after a minute`);
}

/** Lighthouse on each page of a running storefront at `baseUrl`, one run each. */
export async function lighthouseFigures(report: Report, baseUrl: string): Promise<void> {
  // Both are ES modules; the bench runs as CommonJS.
  const [{ default: lighthouse, generateReport }, { launch }] = await Promise.all([
    import('lighthouse'),
    import('chrome-launcher'),
  ]);
  fs.mkdirSync(REPORTS, { recursive: true });
  /** One Lighthouse run in a browser of its own: nothing cached or warmed by the page before. */
  const audit = async (url: string) => {
    const chrome = await launch({
      chromePath: CHROMIUM,
      chromeFlags: CHROMIUM_FLAGS,
      ignoreDefaultFlags: true,
    });
    try {
      const result = await lighthouse(url, {
        port: chrome.port,
        logLevel: 'error',
        onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
      });
      if (!result) throw new Error('Lighthouse answered nothing');
      return result.lhr;
    } finally {
      chrome.kill();
    }
  };
  for (const page of PAGES) {
    try {
      let lhr = await audit(`${baseUrl}${page.path}`);
      // A trace Lighthouse could not read (it happens on a busy machine) is taken once more.
      if (lhr.runtimeError) lhr = await audit(`${baseUrl}${page.path}`);
      fs.writeFileSync(path.join(REPORTS, `${page.name}.html`), generateReport(lhr, 'html'));
      if (lhr.runtimeError) report.line(page.name, `not measured: ${lhr.runtimeError.message}`);
      else pageLines(report, page.name, lhr);
    } catch (err) {
      report.line(page.name, `not measured: ${(err as Error).message}`);
    }
  }
}

/** The section: a store of one instance each on `ports`, its catalogue synced, and Lighthouse on three pages. */
export async function phoneFigures(report: Report, ports: Record<App, number>): Promise<void> {
  report.heading(
    `Storefront on a phone (Lighthouse ${LIGHTHOUSE_VERSION} mobile: slow 4G, 4× CPU slowdown, simulated; one run per page: ${PAGES.map((p) => `${p.name} ${p.path}`).join(', ')}; reports in test-output/lighthouse/)`,
  );
  if (!fs.existsSync(CHROMIUM)) {
    report.line('Lighthouse', `skipped: no chromium at ${CHROMIUM} (set CHROME_PATH to use another)`);
    return;
  }
  process.stderr.write('  starting the store for Lighthouse…\n');
  const store = await startLoadStore({ auth: 1, wallet: 1, catalog: 1, orders: 1, payments: 1 }, ports);
  try {
    await catalogueSynced(store.cluster.gatewayUrl);
    // Lighthouse scales the page's observed main-thread time by four: work the machine still does
    // for what came before (a store starting, a sync, the grown store's cleanup) would count as the page's.
    const waited = await untilIdle();
    report.line(
      'the machine idle before the runs',
      Number.isFinite(waited) ? `after ${Math.round(waited)} s` : 'never (2 min)',
    );
    await lighthouseFigures(report, store.cluster.gatewayUrl);
  } finally {
    await store.stop();
  }
}

// Alone (NODE_ENV=development npx tsx infra/bench/phone.ts), on ports of its own beside a running bench.
if (require.main === module) {
  const report: Report = {
    heading: (title) => console.log(`\n${title}`),
    line: (label, value) => console.log(`  ${label.padEnd(58)} ${value}`),
  };
  const ports = { gateway: 4960, auth: 4961, wallet: 4962, catalog: 4963, orders: 4964, payments: 4965 };
  phoneFigures(report, ports).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
