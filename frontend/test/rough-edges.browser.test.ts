import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { checkA11y } from './support/a11y';
import { screenshot, WIDTHS } from './support/browser';
import { faults, look, see, walkTheStore } from './support/walk';

/**
 * The storefront's rough edges (issue 19), each tried in chromium against the whole store as a
 * new user would meet it. Failures are the network's or the store's own, never a faked answer:
 * a page's code or the balance is cut off at the network, a discount is really removed.
 */
const walk = walkTheStore();
const { open, signIn } = walk;

const BALANCE = '**/api/balance?*';

/** The products on a category page a customer can choose. */
const available = (page: Page) => page.locator('[aria-label="Products"] button:enabled');

/** The tab's title, once the screen has set it. */
async function titled(page: Page, title: string): Promise<void> {
  await page.waitForFunction((t) => document.title === t, title, { timeout: 5_000 }).catch(() => undefined);
  expect(await page.title()).toBe(title);
}

let adminToken: string | undefined;
/** A call to the API as the store's admin, as the back office makes it. */
async function asAdmin() {
  const store = walk.store();
  adminToken ??= await store.signIn(store.adminEmail, store.adminPassword);
  return store.api().set('Authorization', `Bearer ${adminToken}`);
}

async function balanceOf(token: string): Promise<number> {
  const res = await walk
    .store()
    .api()
    .get('/api/balance')
    .set('Authorization', `Bearer ${token}`)
    .expect(200);
  return res.body.balance as number;
}

/** A customer whose wallet holds `dollars`, `debt` of them given as debt by an admin. */
async function customerWith(dollars: number, debt = 0) {
  const customer = await walk.store().newCustomer();
  if (dollars > debt) await walk.store().creditWallet(customer.id, dollars - debt);
  if (debt) {
    const admin = await asAdmin();
    await admin
      .post('/api/debtpayment')
      .set('Idempotency-Key', randomUUID())
      .send({ user_id: customer.id, amount: debt, type: 'IN', product_name: 'Payment', status: 'confirmed' })
      .expect(201);
  }
  return customer;
}

/** A failed page chunk, as the browser words it: the request, and its console line. */
const chunkCutOff = (chunk: string) => [
  new RegExp(`^request failed: GET \\S+/assets/${chunk}-[\\w-]+\\.js: net::ERR_FAILED$`),
  new RegExp(
    `^console error: Failed to load resource: net::ERR_FAILED \\(\\S+/assets/${chunk}-[\\w-]+\\.js\\)$`,
  ),
];

/** The balance cut off at the network, as the browser words it. */
const balanceCutOff = [
  /^request failed: GET \S+\/api\/balance\?user_id=\w+: net::ERR_INTERNET_DISCONNECTED$/,
  /^console error: Failed to load resource: net::ERR_INTERNET_DISCONNECTED \(\S+\/api\/balance\?user_id=\w+\)$/,
];

/**
 * An element as one line, to compare the index page's header with the app's: each element's tag
 * and attributes (the router's data-discover and the waiting links' class aside), and its text,
 * without the whitespace between elements.
 */
const shapeOf = (html: string) =>
  html
    .replace(/ data-discover="true"/g, '')
    .replace(/ header__menu--waiting/g, '')
    .replace(/>\s+</g, '><')
    .replace(/\s+/g, ' ');

describe('the rough edges a new user met', () => {
  it.each(WIDTHS)(
    'shows an error screen when a page cannot load, and Reload brings it back, at %i px',
    async (width) => {
      const { page, problems } = await open(width);
      await page.route('**/assets/ContactPage-*.js', (route) => route.abort());
      await page.goto('/contact-us');
      const screen = page
        .getByRole('alert')
        .filter({ has: page.getByRole('heading', { name: 'Something went wrong' }) });
      await screen.getByText('This page could not be shown. Reload it to try again.').waitFor();
      await titled(page, 'Something went wrong · Raseed');
      // Inside the store's own layout: the header is still there to leave by.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).waitFor();
      await look(page, 'error-screen', screen.getByRole('button', { name: 'Reload' }));

      await page.unroute('**/assets/ContactPage-*.js');
      await screen.getByRole('button', { name: 'Reload' }).click();
      await page.getByRole('button', { name: 'Send Message' }).waitFor();
      await titled(page, 'Contact Us · Raseed');
      expect(faults(problems, chunkCutOff('ContactPage'))).toEqual([]);
    },
  );

  it.each(WIDTHS)(
    'paints the header at once, before the app has come, then the app takes it over as it was, at %i px',
    async (width) => {
      const { page, problems } = await open(width);
      // The app's code held back: what the index page alone shows.
      await page.route('**/assets/*.js', (route) => route.abort());
      await page.goto('/');
      const header = page.getByRole('banner');
      await header.getByRole('link', { name: 'Home' }).waitFor();
      await page.getByRole('status').getByText('Loading...').waitFor({ state: 'attached' });
      // Its links wait for the app, which knows who is signed in: none is shown, none in the way.
      expect(await header.getByRole('link', { name: 'Sign In' }).isVisible()).toBe(false);
      const painted = await header.boundingBox();
      await screenshot(page, 'first-paint');
      const shell = await header.evaluate((el) => el.outerHTML);

      await page.unroute('**/assets/*.js');
      await page.reload();
      await titled(page, 'Home · Raseed');
      expect(await header.boundingBox()).toEqual(painted);
      expect(shapeOf(shell)).toBe(shapeOf(await header.evaluate((el) => el.outerHTML)));
      expect(faults(problems, chunkCutOff('\\w+'))).toEqual([]);
    },
  );

  it('never shows a false balance: … while it loads, Retry after a failure, in the header and the order modal', async () => {
    const { page, problems } = await open();
    const customer = await customerWith(12);
    const product = await walk
      .store()
      .createProduct({ dollars: '5', params: 'Account e-mail', category: 'Steam' });
    const badge = page.getByTestId('header-balance');

    // Held at the network until seen: the header shows …, not 0.00$, while the balance loads.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(BALANCE, async (route) => {
      await held;
      await route.continue();
    });
    await signIn(page, customer.email, customer.password);
    await badge.filter({ hasText: '…' }).waitFor();
    expect(await badge.getAttribute('aria-busy')).toBe('true');
    expect(await badge.textContent()).not.toContain('0.00$');
    await titled(page, 'Home · Raseed');
    release();
    await badge.filter({ hasText: '12.00$' }).waitFor();
    await page.unroute(BALANCE);

    // Cut off: the header offers Retry (and says why), and Retry brings the balance.
    await page.route(BALANCE, (route) => route.abort('internetdisconnected'));
    await page.reload();
    const headerRetry = page.getByRole('banner').getByRole('button', { name: 'Retry loading the balance' });
    await headerRetry.waitFor();
    await see(page, 'Unable to fetch balance.');
    await screenshot(page, 'header-balance-retry');
    await checkA11y(page, 'header-balance-retry');
    await page.unroute(BALANCE);
    await headerRetry.click();
    await badge.filter({ hasText: '12.00$' }).waitFor();

    // The order modal says so too, instead of 'Loading...' for ever, and its Retry brings it.
    await page.route(BALANCE, (route) => route.abort('internetdisconnected'));
    await page.goto('/category/Steam');
    await titled(page, 'Products in Steam · Raseed');
    await headerRetry.waitFor();
    await available(page).filter({ hasText: product.name }).click();
    const modal = page.getByRole('dialog');
    await modal.getByText('Unable to fetch balance.').waitFor();
    await screenshot(page, 'order-modal-balance-retry');
    await checkA11y(page, 'order-modal-balance-retry');
    await page.unroute(BALANCE);
    await modal.getByRole('button', { name: 'Retry loading the balance' }).click();
    await modal.getByText('Your Balance: 12.00$').waitFor();
    await badge.filter({ hasText: '12.00$' }).waitFor();

    // The param's input has a label of its own; left blank, it is marked and described at the field.
    const param = modal.getByLabel('Account e-mail');
    expect(await param.getAttribute('placeholder')).toBe('Enter Account e-mail');
    await modal.getByRole('button', { name: 'Send Order' }).click();
    await modal.getByText('Please fill all required fields.').waitFor();
    expect(await param.getAttribute('aria-invalid')).toBe('true');
    const described = (await param.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`[id="${described}"]`).textContent()).toBe('Account e-mail is required.');
    await screenshot(page, 'order-modal-field-error');
    await checkA11y(page, 'order-modal-field-error');
    await param.fill(customer.email);
    expect(await param.getAttribute('aria-invalid')).toBeNull();
    await modal.getByRole('button', { name: 'Send Order' }).click();
    await see(page, 'Order placed successfully!');
    await badge.filter({ hasText: '7.00$' }).waitFor();

    // Each tab says which screen it is.
    await page.getByRole('link', { name: 'My Orders' }).click();
    await page.locator('.rows > li').filter({ hasText: product.name }).waitFor();
    await titled(page, 'My Orders · Raseed');
    await page.getByRole('link', { name: 'Add Credit' }).click();
    await titled(page, 'Add Credit · Raseed');
    await page.goto('/no-such-page');
    await titled(page, 'Page not found · Raseed');
    expect(faults(problems, balanceCutOff)).toEqual([]);
  });

  it('shows a sign-up problem at its field, marked invalid and described by the text', async () => {
    const { page, problems } = await open();
    await page.goto('/signup');
    await titled(page, 'Sign Up · Raseed');
    const email = page.getByLabel('Email');
    const confirm = page.getByLabel('Confirm Password');
    await page.getByLabel('Username').fill(`fields${Date.now().toString(36)}`);
    await email.fill('walker-at-example');
    await page.getByLabel('Password', { exact: true }).fill('walk-the-store-9');
    await confirm.fill('walk-the-store-8');
    await page.getByLabel('Phone Number').fill('+961 70 123456');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    // The spec's toast, and the same text under the field.
    await see(page, 'Please enter a valid email address');
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await email.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe(
      'Please enter a valid email address',
    );
    expect(await confirm.getAttribute('aria-invalid')).toBeNull();
    await screenshot(page, 'signup-field-error');
    await checkA11y(page, 'signup-field-error');

    // Put right, the e-mail is no longer marked; the next problem is marked at its own field.
    await email.fill('walker@example.com');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await see(page, 'Passwords do not match');
    expect(await email.getAttribute('aria-invalid')).toBeNull();
    expect(await confirm.getAttribute('aria-invalid')).toBe('true');
    const confirmProblem = (await confirm.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`[id="${confirmProblem}"]`).textContent()).toBe('Passwords do not match');
    expect(faults(problems)).toEqual([]);
  });

  it.each(WIDTHS)('copies each Add Credit destination to the clipboard at %i px', async (width) => {
    const { page, problems } = await open(width, { permissions: ['clipboard-read', 'clipboard-write'] });
    const customer = await walk.store().newCustomer();
    await signIn(page, customer.email, customer.password);
    await page.goto('/charge');
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

    for (const [method, labels] of [
      ['Whish-Money', ['Whish-Money phone number']],
      ['Binance', ['USDT (TRC20) address', 'USDT (BEP20) address', 'Binance Pay ID']],
    ] as const) {
      await page.getByRole('button', { name: method }).click();
      const modal = page.getByRole('dialog');
      for (const label of labels) {
        const value = await modal.getByLabel(label, { exact: true }).inputValue();
        expect(value).not.toBe('');
        await modal.getByRole('button', { name: `Copy ${label}` }).click();
        await modal.getByRole('button', { name: `Copied ${label}` }).waitFor();
        await modal
          .getByRole('status')
          .filter({ hasText: `${label} copied` })
          .waitFor({ state: 'attached' });
        expect(await clipboard()).toBe(value);
      }
      await look(page, `add-credit-${method.toLowerCase()}`, modal.getByRole('button', { name: 'Submit' }));
      await page.keyboard.press('Escape');
      await modal.waitFor({ state: 'hidden' });
    }
    expect(faults(problems)).toEqual([]);
  });

  it.each(WIDTHS)(
    "shows a user's balance and debt in the money modals and asks before a withdrawal, at %i px",
    async (width) => {
      const { page, problems } = await open(width);
      const customer = await customerWith(37, 7);
      await signIn(page, walk.store().adminEmail, walk.store().adminPassword);
      await page.goto('/admin/users');
      await titled(page, 'All Users · Raseed');
      await page.getByLabel('Search users').fill(customer.username);
      await page.getByRole('button', { name: 'Search' }).click();
      const card = page.locator('.user-card').filter({ hasText: customer.email });
      const modal = page.getByRole('dialog');
      const wallet = modal.getByTestId('user-wallet');

      for (const action of ['Add to wallet', 'Add credit as debt', 'Change debt']) {
        await card.getByRole('button', { name: action }).click();
        await wallet.filter({ hasText: 'Balance: 37.00$ · Debt: 7.00$' }).waitFor();
        await page.keyboard.press('Escape');
        await modal.waitFor({ state: 'hidden' });
      }

      await card.getByRole('button', { name: 'Withdraw' }).click();
      await wallet.filter({ hasText: 'Balance: 37.00$ · Debt: 7.00$' }).waitFor();
      await modal.getByLabel('Amount ($)').fill('5');
      await modal.getByRole('button', { name: 'Save' }).click();
      const question = modal.getByText(`Withdraw 5.00$ from ${customer.username}?`);
      await question.waitFor();
      await look(page, 'withdraw-confirm', modal.getByRole('button', { name: 'Confirm' }));

      // Back: the modal stays, the amount can be changed, and no money has moved.
      await modal.getByRole('button', { name: 'Back' }).click();
      await modal.getByLabel('Amount ($)').waitFor();
      expect(await question.count()).toBe(0);
      expect(await modal.isVisible()).toBe(true);
      expect(await balanceOf(customer.token)).toBe(37);

      // Confirm: the withdrawal is made, once.
      await modal.getByRole('button', { name: 'Save' }).click();
      await question.waitFor();
      await modal.getByRole('button', { name: 'Confirm' }).click();
      await see(page, '$5 withdrawn from wallet successfully.');
      await modal.waitFor({ state: 'hidden' });
      expect(await balanceOf(customer.token)).toBe(32);
      await card.getByRole('button', { name: 'Withdraw' }).click();
      await wallet.filter({ hasText: 'Balance: 32.00$ · Debt: 7.00$' }).waitFor();
      await page.keyboard.press('Escape');
      expect(faults(problems)).toEqual([]);
    },
  );

  it('drops a removed discount from the header and the prices without signing in again', async () => {
    const admin = await open();
    const shopper = await open();
    const customer = await walk.store().newCustomer();
    const product = await walk.store().createProduct({ dollars: '10', category: 'Steam' });
    const asTheAdmin = await asAdmin();
    await asTheAdmin.post('/api/discount').send({ user_id: customer.id, percentage: 10 }).expect(200);

    await signIn(shopper.page, customer.email, customer.password);
    const badge = shopper.page.getByTestId('header-discount');
    await badge.filter({ hasText: 'Discount: 10%' }).waitFor();
    await shopper.page.goto('/category/Steam');
    const card = available(shopper.page).filter({ hasText: product.name });
    await card.getByText('9.00$').waitFor();

    await signIn(admin.page, walk.store().adminEmail, walk.store().adminPassword);
    await admin.page.goto('/admin/users');
    await admin.page.getByLabel('Search users').fill(customer.username);
    await admin.page.getByRole('button', { name: 'Search' }).click();
    await admin.page
      .locator('.user-card')
      .filter({ hasText: customer.email })
      .getByRole('button', { name: 'Change discount' })
      .click();
    await admin.page.getByRole('dialog').getByRole('button', { name: 'Remove discount' }).click();
    await see(admin.page, 'Discount removed successfully');

    // At the header's next ask (every 10 s), with no sign-in and no reload.
    await badge.waitFor({ state: 'detached', timeout: 20_000 });
    await card.getByText('10.00$').waitFor();
    expect(faults(admin.problems)).toEqual([]);
    expect(faults(shopper.problems)).toEqual([]);
  });

  it('pages All Users and a user search, with Previous and Next, and shows the error screen inside the back office', async () => {
    const { page, problems } = await open();
    const prefix = `pager${Date.now().toString(36)}`;
    // Twelve users whose names match the search: ten on the first page, two on the second.
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        walk
          .store()
          .api()
          .post('/api/signup')
          .send({
            username: `${prefix}${String(i).padStart(2, '0')}`,
            email: `${prefix}${i}@example.com`,
            phone: '+961 70 123456',
            password: 'paging-along-9',
          })
          .expect(201),
      ),
    );
    await signIn(page, walk.store().adminEmail, walk.store().adminPassword);
    await page.goto('/admin');

    // The page's code cut off: the error screen shows inside the back office, its menu still there.
    await page.route('**/assets/UsersPage-*.js', (route) => route.abort());
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'All Users' }).click();
    await page.getByRole('heading', { name: 'Something went wrong' }).waitFor();
    await page.getByRole('navigation', { name: 'Admin' }).waitFor();
    await screenshot(page, 'admin-error-screen');
    await checkA11y(page, 'admin-error-screen');
    await page.unroute('**/assets/UsersPage-*.js');
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByRole('heading', { name: 'All Users' }).waitFor();

    const pages = page.getByRole('navigation', { name: 'Pages' });
    const previous = pages.getByRole('button', { name: 'Previous' });
    const next = pages.getByRole('button', { name: 'Next' });
    const current = pages.locator('[aria-current="page"]');
    const names = page.locator('.user-card__name');
    const shown = async () => {
      await page.locator('.user-cards').waitFor();
      return names.allTextContents();
    };

    // The whole list: Previous is off on page 1, and brings page 1 back from page 2.
    await page.locator('.user-card').first().waitFor();
    expect(await previous.isDisabled()).toBe(true);
    const first = await shown();
    expect(first).toHaveLength(10);
    await next.click();
    await current.filter({ hasText: /^2$/ }).waitFor();
    const second = await shown();
    expect(second.some((name) => first.includes(name))).toBe(false);
    expect(await previous.isEnabled()).toBe(true);
    await previous.click();
    await current.filter({ hasText: /^1$/ }).waitFor();
    expect(await shown()).toEqual(first);
    expect(await previous.isDisabled()).toBe(true);

    // A search is paged the same way.
    await page.getByLabel('Search users').fill(prefix);
    await page.getByRole('button', { name: 'Search' }).click();
    await current.filter({ hasText: /^1$/ }).waitFor();
    const found = await shown();
    expect(found).toHaveLength(10);
    for (const name of found) expect(name.startsWith(prefix)).toBe(true);
    expect(await previous.isDisabled()).toBe(true);
    await next.click();
    await current.filter({ hasText: /^2$/ }).waitFor();
    const rest = await shown();
    expect(rest).toHaveLength(2);
    expect([...found, ...rest].sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`),
    );
    expect(await next.isDisabled()).toBe(true);
    await screenshot(page, 'admin-users-search-page-2');
    await checkA11y(page, 'admin-users-search-page-2');
    await previous.click();
    await current.filter({ hasText: /^1$/ }).waitFor();
    expect(await shown()).toEqual(found);
    expect(faults(problems, chunkCutOff('UsersPage'))).toEqual([]);
  });
});
