import type { Locator } from 'playwright-core';
import { screenshot, WIDTHS } from './support/browser';
import type { Store } from './support/store';
import { faults, look, poll, see, walkTheStore } from './support/walk';

/**
 * An admin's day in the back office, in chromium against the whole store: top-ups and
 * orders decided, a customer's wallet, debt and discount changed, another admin made;
 * each effect checked where the customer sees it.
 */
const walk = walkTheStore();
const { open, signIn } = walk;

type Customer = Awaited<ReturnType<Store['newCustomer']>>;

async function order(customer: Customer, productId: string, email: string): Promise<string> {
  const res = await walk
    .store()
    .api()
    .post('/api/orders')
    .set('Authorization', `Bearer ${customer.token}`)
    .send({ product_id: productId, quantity: 1, params: `Account e-mail:${email}` })
    .expect(201);
  return res.body.orderId as string;
}

async function balanceOf(customer: Customer): Promise<number> {
  const res = await walk
    .store()
    .api()
    .get('/api/balance')
    .set('Authorization', `Bearer ${customer.token}`)
    .expect(200);
  return res.body.balance as number;
}

describe('an admin in the back office', () => {
  it('keeps a customer who types /admin out', async () => {
    const { page, problems } = await open();
    const customer = await walk.store().newCustomer();
    await signIn(page, customer.email, customer.password);
    expect(await page.getByRole('link', { name: 'Admin Dashboard' }).count()).toBe(0);
    await page.goto('/admin/users');
    await page.waitForURL(`${walk.store().url}/`);
    expect(await page.locator('.admin-menu').count()).toBe(0);
    expect(faults(problems)).toEqual([]);
  });

  it('decides top-ups and orders, and manages a customer, each seen by the customer', async () => {
    const admin = await open();
    const shopper = await open();
    const customer = await walk.store().newCustomer();
    await walk.store().creditWallet(customer.id, 50);
    const product = await walk.store().createProduct({ dollars: '8', params: 'Account e-mail' });
    const accepted = await order(customer, product.id, 'first@example.com');
    const rejected = await order(customer, product.id, 'second@example.com');
    await walk.store().topUp(customer.token, 30);

    await signIn(admin.page, walk.store().adminEmail, walk.store().adminPassword);
    await admin.page.getByRole('link', { name: 'Admin Dashboard' }).click();
    await see(admin.page, 'New Payments (Waiting)');
    await admin.page.locator('.widget__value').first().filter({ hasText: /\d/ }).waitFor();
    await screenshot(admin.page, 'walk-admin-home');

    // Active Payments: a top-up sent while the page is open shows without a reload.
    await admin.page.getByRole('link', { name: /^Active Payments/ }).click();
    const rows = admin.page.locator('.rows > li').filter({ hasText: customer.username });
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    await walk.store().topUp(customer.token, 12);
    await rows.nth(1).waitFor({ timeout: 20_000 });
    await admin.page
      .locator('.admin-menu')
      .getByText('2', { exact: true })
      .first()
      .waitFor({ timeout: 20_000 });

    // Confirm the 30 (the older, listed second) and reject the 12.
    const before = await balanceOf(customer);
    const thirty = rows.filter({ hasText: '30.00$' });
    await thirty.getByRole('button').first().click();
    await thirty.getByAltText('Transfer screenshot').waitFor();
    await screenshot(admin.page, 'walk-admin-active-payments');
    await thirty.getByRole('button', { name: 'Confirm' }).click();
    await see(admin.page, 'Payment has been confirmed.');
    const twelve = rows.filter({ hasText: '12.00$' });
    await twelve.getByRole('button').first().click();
    await twelve.getByRole('button', { name: 'Reject' }).click();
    await see(admin.page, 'Payment has been rejected.');
    await see(admin.page, 'No Active payments found.');
    await expect(
      poll(
        () => balanceOf(customer),
        (b) => b === before + 30,
      ),
    ).resolves.toBe(before + 30);

    // Active Orders: accept one with a reply, reject the other (refunded).
    await admin.page.getByRole('link', { name: /^Active Orders/ }).click();
    const first = admin.page.locator('.rows > li').filter({ hasText: accepted.slice(-8) });
    await first.getByText('first@example.com').waitFor();
    await screenshot(admin.page, 'walk-admin-active-orders');
    await first.getByLabel('Reply to the customer (optional)').fill('Your code: ABCD-1234');
    await first.getByRole('button', { name: 'Accept' }).click();
    await see(admin.page, 'Order has been accepted.');
    const second = admin.page.locator('.rows > li').filter({ hasText: rejected.slice(-8) });
    await second.getByRole('button', { name: 'Reject' }).click();
    await see(admin.page, 'Order has been rejected.');
    await see(admin.page, 'No active orders found.');

    // The customer reads the reply in My Orders and finds the refund in the profile.
    await signIn(shopper.page, customer.email, customer.password);
    await shopper.page.goto('/my-orders');
    const mine = shopper.page.locator('.rows > li').filter({ hasText: accepted.slice(-8) });
    await mine.getByRole('button').click();
    await mine.getByText('Your code: ABCD-1234').waitFor();
    await shopper.page.goto(`/profile/${customer.id}`);
    const refund = shopper.page
      .locator('.table tbody tr')
      .filter({ hasText: product.name })
      .filter({ has: shopper.page.locator('td.type--in') });
    await refund.waitFor();

    // All Users: the customer's wallet, debt and discount; the header shows each.
    await admin.page.getByRole('link', { name: 'All Users' }).click();
    await admin.page.getByRole('button', { name: 'Search' }).click();
    await see(admin.page, 'Please enter a search query.');
    await admin.page.getByLabel('Search users').fill(customer.username);
    await admin.page.getByRole('button', { name: 'Search' }).click();
    const card = admin.page.locator('.user-card').filter({ hasText: customer.email });
    await card.waitFor();
    await screenshot(admin.page, 'walk-admin-users');
    /** One money action; a withdrawal is sent only once its question, with the amount, is confirmed. */
    const act = async (button: string, value: string, toast: string, question?: string) => {
      await card.getByRole('button', { name: button }).click();
      const modal = admin.page.getByRole('dialog');
      await modal.getByRole('spinbutton').fill(value);
      await modal.getByRole('button', { name: 'Save' }).click();
      if (question) {
        await modal.getByText(question).waitFor();
        await modal.getByRole('button', { name: 'Confirm' }).click();
      }
      await see(admin.page, toast);
      await modal.waitFor({ state: 'hidden' });
    };
    await card.getByRole('button', { name: 'Add to wallet' }).click();
    await admin.page.getByRole('dialog').getByRole('spinbutton').fill('0');
    await admin.page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await see(admin.page, 'Please enter a valid price (greater than 0).');
    await admin.page.keyboard.press('Escape');
    const start = await balanceOf(customer);
    await act('Add to wallet', '10', '$10 added to wallet successfully.');
    await act(
      'Withdraw',
      '5',
      '$5 withdrawn from wallet successfully.',
      `Withdraw 5.00$ from ${customer.username}?`,
    );
    await act('Add credit as debt', '20', '$20 added to wallet successfully.');
    await shopper.page.getByTestId('header-debt').filter({ hasText: '20.00$' }).waitFor({ timeout: 20_000 });
    await shopper.page
      .getByTestId('header-balance')
      .filter({ hasText: `${(start + 25).toFixed(2)}$` })
      .waitFor({ timeout: 20_000 });
    await act('Change debt', '7', 'debt has changed successfully.');
    await shopper.page.getByTestId('header-debt').filter({ hasText: '7.00$' }).waitFor({ timeout: 20_000 });
    await card.getByRole('button', { name: 'Add discount' }).click();
    await admin.page.getByRole('dialog').getByRole('spinbutton').fill('0');
    await admin.page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await see(admin.page, 'Please enter a valid percentage (greater than 0)');
    await admin.page.keyboard.press('Escape');
    await act('Add discount', '10', 'Discount percentage set successfully');
    await shopper.page
      .getByTestId('header-discount')
      .filter({ hasText: 'Discount: 10%' })
      .waitFor({ timeout: 20_000 });
    await card.getByText('10%').first().waitFor();

    // An admin opens any profile, and may delete the account: back to All Users.
    const leaving = await walk.store().newCustomer();
    await admin.page.getByLabel('Search users').fill(leaving.username);
    await admin.page.getByRole('button', { name: 'Search' }).click();
    await admin.page
      .locator('.user-card')
      .filter({ hasText: leaving.email })
      .getByRole('link', { name: 'Profile' })
      .click();
    await see(admin.page, `Welcome, ${leaving.username}!`);
    await admin.page.getByRole('button', { name: 'Delete Account' }).click();
    await admin.page
      .getByRole('dialog')
      .getByText('This will delete all your account information.')
      .waitFor();
    await admin.page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await see(admin.page, 'Account deleted successfully');
    await admin.page.waitForURL('**/admin/users');
    await walk
      .store()
      .api()
      .post('/api/signin')
      .send({ email: leaving.email, password: leaving.password })
      .expect(401);

    // New Admin: another admin who can sign in.
    await admin.page.getByRole('link', { name: 'New Admin' }).click();
    const email = `admin${Date.now().toString(36)}@example.com`;
    await admin.page.getByLabel('Username').fill(`admin${Date.now().toString(36)}`);
    await admin.page.getByLabel('Email').fill(email);
    await admin.page.getByLabel('Password', { exact: true }).fill('another-admin-9');
    await admin.page.getByLabel('Phone').fill('+961 70 000111');
    await screenshot(admin.page, 'walk-admin-create-admin');
    await admin.page.getByRole('button', { name: 'Create Admin' }).click();
    await see(admin.page, 'Admin created successfully');
    await walk.store().signIn(email, 'another-admin-9');

    expect(faults(admin.problems)).toEqual([]);
    expect(faults(shopper.problems)).toEqual([]);
  });

  it.each(WIDTHS)('shows every admin screen at %i px', async (width) => {
    const { page, problems } = await open(width);
    // Something on every list: a customer's order and top-up, both waiting for an admin.
    const customer = await walk.store().newCustomer();
    await walk.store().creditWallet(customer.id, 20);
    const product = await walk.store().createProduct({ dollars: '4', params: 'Account e-mail' });
    const placed = await order(customer, product.id, customer.email);
    await walk.store().topUp(customer.token, 15);
    await signIn(page, walk.store().adminEmail, walk.store().adminPassword);
    const rows = page.locator('.rows > li');
    const screens: [string, string, Locator][] = [
      ['admin-home', '/admin', page.locator('.widget__value').filter({ hasText: /[1-9]/ })],
      ['admin-orders-history', '/admin/orders', rows.filter({ hasText: placed.slice(-8) })],
      ['admin-active-orders', '/admin/active-orders', rows.filter({ hasText: placed.slice(-8) })],
      ['admin-payments-history', '/admin/payments-history', rows.filter({ hasText: customer.username })],
      ['admin-active-payments', '/admin/active-payments', rows.filter({ hasText: customer.username })],
      ['admin-disputed-orders', '/admin/disputed-orders', page.getByText('No stuck orders found.')],
      ['admin-users', '/admin/users', page.locator('.user-card')],
      ['admin-create-admin', '/admin/create-admin', page.getByRole('button', { name: 'Create Admin' })],
    ];
    for (const [name, path, key] of screens) {
      await page.goto(path);
      await look(page, name, key);
      expect([name, await page.evaluate(() => document.documentElement.scrollWidth)]).toEqual([name, width]);
    }
    expect(faults(problems)).toEqual([]);
  });
});
