// Callbacks given to page.evaluate run in the page, so browser tests type-check against the DOM too.
/// <reference lib="dom" />
import axe, { type AxeResults, type ImpactValue } from 'axe-core';
import type { Page } from 'playwright-core';

type Axe = typeof axe;

/** What fails a screen: a violation a person using a screen reader or low vision cannot get past. */
const BLOCKING: ImpactValue[] = ['serious', 'critical'];

/**
 * Runs axe-core on the page as it is now (a modal open included) and fails on any serious or
 * critical violation, naming each rule, its impact and the elements it found. Prints one line per
 * screen: `[axe] customer-my-orders-375: 0 serious/critical, 2 moderate (region, …)`.
 * Injected with evaluate, not a script tag: the store's CSP refuses inline scripts.
 */
export async function checkA11y(page: Page, name: string): Promise<void> {
  const screen = `${name}-${page.viewportSize()?.width ?? 'unknown'}`;
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const { axe: inPage } = window as unknown as { axe: Axe };
    const results: AxeResults = await inPage.run(document, { resultTypes: ['violations'] });
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? 'minor',
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });

  const blocking = violations.filter((v) => BLOCKING.includes(v.impact));
  const counted = (found: typeof violations, what: string) =>
    `${found.length} ${what}${found.length ? ` (${found.map((v) => v.id).join(', ')})` : ''}`;
  const others = (['moderate', 'minor'] as const)
    .map((impact) => violations.filter((v) => v.impact === impact))
    .filter((found) => found.length)
    .map((found) => `, ${counted(found, found[0]?.impact ?? '')}`)
    .join('');
  console.log(`[axe] ${screen}: ${counted(blocking, 'serious/critical')}${others}`);
  if (blocking.length) {
    const lines = blocking.map(
      (v) => `  ${v.id} (${v.impact}): ${v.help}\n${v.targets.map((t) => `    ${t}`).join('\n')}`,
    );
    throw new Error(`axe found serious or critical violations on ${screen}:\n${lines.join('\n')}`);
  }
}
