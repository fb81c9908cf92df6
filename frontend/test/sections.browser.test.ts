import type { Page } from 'playwright-core';
import { IMAGE } from '../../services/catalog/test/support';
import { screenshot, WIDTHS } from './support/browser';
import { faults, look, see, walkTheStore } from './support/walk';

/**
 * The home page's six sections in chromium, against the whole store: each shows the store's own
 * artwork until an admin gives it a picture on Create home, and again once the admin takes it away.
 */
const walk = walkTheStore();
const { open, signIn } = walk;

const SECTIONS = [
  'Applications section',
  'Games section',
  'Cards section',
  'قسم الرصيد والباقات',
  'Numbers section',
  'Social Media Section',
];

interface Tile {
  name: string;
  href: string | null;
  src: string;
  alt: string;
  loaded: boolean;
}

/** The home page's tiles once every picture has loaded (or failed): name, link and picture. */
async function tiles(page: Page): Promise<Tile[]> {
  await page.waitForFunction(() => {
    const pictures = Array.from(document.querySelectorAll<HTMLImageElement>('.tiles .tile img'));
    return pictures.length === 6 && pictures.every((img) => img.complete);
  });
  return page.locator('.tiles > li').evaluateAll((items) =>
    items.map((li) => {
      const img = li.querySelector('img');
      return {
        name: li.querySelector('.tile__name')?.textContent ?? '',
        href: li.querySelector('a')?.getAttribute('href') ?? null,
        src: img?.getAttribute('src') ?? '',
        alt: img?.alt ?? '',
        loaded: !!img && img.naturalWidth > 0,
      };
    }),
  );
}

/** The store's artwork: an SVG inside the script (see SectionPicture), never the grey placeholder. */
const ARTWORK = /^data:image\/svg\+xml,%3csvg/;
const UPLOADED = /^\/api\/catalog\/images\/[\w-]+\.png$/;

/**
 * Reloads the home page until the section's picture matches: a visitor's read of the sections
 * may come from the gateway's short public cache (PUBLIC_CACHE_MS) for a moment after a change.
 */
async function homeShows(page: Page, section: string, src: RegExp, within = 15_000): Promise<Tile> {
  const deadline = Date.now() + within;
  for (;;) {
    await page.goto('/');
    const tile = (await tiles(page)).find((t) => t.name === section);
    if (tile && src.test(tile.src)) return tile;
    if (Date.now() > deadline) throw new Error(`${section} still shows ${tile?.src} after ${within} ms`);
    await page.waitForTimeout(250);
  }
}

describe('the home sections', () => {
  it.each(WIDTHS)('show our artwork, each linking to its section, at %i px', async (width) => {
    const visitor = await open(width);
    const { page } = visitor;
    await page.goto('/');
    await look(page, 'home-sections', page.getByRole('link', { name: 'Games section' }));
    const shown = await tiles(page);
    expect(shown.map((t) => t.name)).toEqual(SECTIONS);
    for (const tile of shown) {
      expect(tile).toMatchObject({ href: `/category/${encodeURIComponent(tile.name)}`, loaded: true });
      expect(tile.src).toMatch(ARTWORK);
      expect(tile.alt.length).toBeGreaterThan(10);
    }
    expect(new Set(shown.map((t) => t.src)).size).toBe(6);
    expect(await page.locator('.tile--placeholder').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    // A tile still leads to its section.
    await page.getByRole('link', { name: 'Numbers section' }).click();
    await see(page, 'Products in Numbers section');

    // The admin's list of the sections' pictures on Create home, and its modal.
    const admin = await open(width);
    await signIn(admin.page, walk.store().adminEmail, walk.store().adminPassword);
    await admin.page.goto('/admin/create');
    const list = admin.page.getByRole('list', { name: 'Section images' });
    await look(admin.page, 'admin-section-images', list.getByText('Our artwork'));
    expect(await list.getByRole('listitem').count()).toBe(6);
    expect(await admin.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await admin.page.getByRole('button', { name: 'Replace image of Cards section' }).click();
    await look(
      admin.page,
      'admin-section-image-modal',
      admin.page.getByRole('dialog').getByLabel('New image'),
    );
    await admin.page.keyboard.press('Escape');

    expect(faults(visitor.problems)).toEqual([]);
    expect(faults(admin.problems)).toEqual([]);
  });

  it("shows an admin's picture for a section on the home page, then our artwork again", async () => {
    const admin = await open();
    await signIn(admin.page, walk.store().adminEmail, walk.store().adminPassword);
    const visitor = await open(375);
    const before = await homeShows(visitor.page, 'Games section', ARTWORK);

    const { page } = admin;
    await page.goto('/admin/create');
    const card = page
      .getByRole('list', { name: 'Section images' })
      .getByRole('listitem')
      .filter({ hasText: 'Games section' });
    await card.getByText('Our artwork').waitFor();
    expect(await card.getByRole('button', { name: 'Use our artwork for Games section' }).count()).toBe(0);
    await card.getByRole('button', { name: 'Replace image of Games section' }).click();
    const modal = page.getByRole('dialog');
    await modal.getByRole('button', { name: 'Save' }).click();
    await see(page, 'Please select an image to upload.');
    // A file that only calls itself a picture: the browser lets it through, the store does not.
    await modal.getByLabel('New image').setInputFiles({
      name: 'fake.png',
      mimeType: 'image/png',
      buffer: Buffer.from('not a picture at all'),
    });
    await modal.getByRole('button', { name: 'Save' }).click();
    await see(page, 'Only JPG/JPEG/PNG files are allowed');
    await modal.getByLabel('New image').setInputFiles(IMAGE);
    await modal.getByRole('button', { name: 'Save' }).click();
    await see(page, 'Section image updated.');
    await modal.waitFor({ state: 'hidden' });
    await card.getByText('Your image').waitFor();
    const chosen = await card.locator('img').getAttribute('src');
    expect(chosen).toMatch(UPLOADED);
    await screenshot(page, 'admin-section-image-set');

    const replaced = await homeShows(visitor.page, 'Games section', UPLOADED);
    expect(replaced).toMatchObject({ src: chosen, loaded: true, alt: 'Picture of the Games section' });
    // The other five keep their artwork.
    const others = (await tiles(visitor.page)).filter((t) => t.name !== 'Games section');
    expect(others.every((t) => ARTWORK.test(t.src) && t.loaded)).toBe(true);
    await screenshot(visitor.page, 'home-section-image-set');

    await card.getByRole('button', { name: 'Use our artwork for Games section' }).click();
    await see(page, 'The section shows our artwork again.');
    await card.getByText('Our artwork').waitFor();
    expect(await homeShows(visitor.page, 'Games section', ARTWORK)).toEqual(before);

    expect(
      faults(admin.problems, [
        `answered 400 PUT /api/catalog/sections/${encodeURIComponent('Games section')}/image`,
      ]),
    ).toEqual([]);
    expect(faults(visitor.problems)).toEqual([]);
  });
});
