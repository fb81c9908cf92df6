import type { Locator, Page } from 'playwright-core';
import { IMAGE } from '../../services/catalog/test/support';
import { screenshot, WIDTHS } from './support/browser';
import { faults, look, see, walkTheStore } from './support/walk';

/**
 * A customer's journeys through the storefront in chromium, against the whole store:
 * every step through the screens, the checks through the screens and the store's data.
 */
const walk = walkTheStore();
const { open, signIn } = walk;

/** The products on the page a customer can choose (an unavailable one is disabled). */
const available = (page: Page) => page.locator('[aria-label="Products"] button:enabled');

const headerBalance = (page: Page, text: string) =>
  page.getByTestId('header-balance').filter({ hasText: text }).waitFor({ timeout: 20_000 });

/** The unit price the store charges this customer, from the same API the page reads. */
async function unitPrice(token: string, category: string, productName: string): Promise<number> {
  const res = await walk
    .store()
    .api()
    .get(`/api/catalog/category/${encodeURIComponent(category)}`)
    .set('Authorization', `Bearer ${token}`)
    .expect(200);
  const product = (res.body.products as { name: string; price: number }[]).find(
    (p) => p.name === productName,
  );
  if (!product) throw new Error(`${productName} is not in ${category}`);
  return product.price;
}

describe('a customer in the storefront', () => {
  it('signs up, signs in, adds credit, orders with params and a quantity, and finds the order', async () => {
    const { page, problems } = await open();
    const username = `walker${Date.now().toString(36)}`;
    const email = `${username}@example.com`;
    const password = 'walk-the-store-9';

    // Sign up: the client's checks first, as warnings, then the account.
    await page.goto('/signup');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByLabel('Confirm Password').fill('short');
    await page.getByLabel('Phone Number').fill('+961 70 123456');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await see(page, 'Password must be at least 8 characters long');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Confirm Password').fill(`${password}x`);
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await see(page, 'Passwords do not match');
    await page.getByLabel('Confirm Password').fill(password);
    await screenshot(page, 'signup');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await page.waitForURL('**/signin');
    await see(page, 'Registration successful! Please sign in.');

    await signIn(page, email, password);
    // A signed-in customer who opens Sign In is sent home.
    await page.goto('/signin');
    await page.waitForURL(`${walk.store().url}/`);
    const userId = await walk.store().userIdOf(email);
    await headerBalance(page, '0.00$');
    await screenshot(page, 'home-signed-in');

    // Add Credit with a real PNG; an admin confirms it and the header shows the balance.
    await page.getByRole('link', { name: 'Add Credit' }).click();
    await page.getByRole('button', { name: 'Whish-Money' }).click();
    await page.getByLabel('Amount ($)').fill('25');
    await page.getByTestId('amount-to-send').filter({ hasText: '24.75$' }).waitFor();
    await page.getByLabel('Transfer screenshot').setInputFiles(IMAGE);
    await screenshot(page, 'charge');
    await page.getByRole('button', { name: 'Submit' }).click();
    await see(page, 'Payment submitted successfully!');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await walk.store().confirmTopUp(email);
    await headerBalance(page, '25.00$');

    // A section, one of its categories, a search, then a product with a param and a quantity.
    await page.getByRole('link', { name: 'Home' }).click();
    await page.getByRole('link', { name: 'Social Media Section' }).click();
    await see(page, 'Products in Social Media Section');
    await page.getByRole('link', { name: 'Instagram Followers' }).click();
    await see(page, 'Products in Instagram Followers');
    const products = page.getByRole('list', { name: 'Products' }).getByRole('button');
    await products.first().waitFor();
    const everything = await products.count();
    await page.getByPlaceholder('Search...').fill('  instagram FOLLOWERS real (m ');
    await page.waitForFunction(
      (before) => document.querySelectorAll('[aria-label="Products"] button').length < before,
      everything,
    );
    const names = await products.locator('.card__name').allTextContents();
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name.toLowerCase().startsWith('instagram followers real (m')).toBe(true);
    await screenshot(page, 'category-search');

    const choice = available(page).first();
    const product = (await choice.locator('.card__name').textContent()) as string;
    await choice.click();
    const modal = page.getByRole('dialog');
    await modal.getByText(product).first().waitFor();
    const quantity = modal.getByLabel('Quantity', { exact: true });
    expect(await quantity.inputValue()).toBe('100');
    await quantity.fill('50');
    await quantity.press('Enter');
    await see(page, 'Quantity must be between 100 and 10000');
    expect(await quantity.inputValue()).toBe('100');
    // The message goes after 2 seconds.
    await page
      .getByText('Quantity must be between 100 and 10000')
      .waitFor({ state: 'hidden', timeout: 4000 });
    await quantity.fill('1000');
    await quantity.press('Enter');
    const token = await walk.store().signIn(email, password);
    const total = (await unitPrice(token, 'Instagram Followers', product)) * 1000;
    await modal.getByText(`Total: ${total.toFixed(2)}$`).waitFor();
    await modal.getByText('Your Balance: 25.00$').waitFor();
    await modal.getByRole('button', { name: 'Send Order' }).click();
    await see(page, 'Please fill all required fields.');
    await modal.getByPlaceholder('Enter Link').fill('https://instagram.com/raseed.walker');
    await screenshot(page, 'order-modal');
    await modal.getByRole('button', { name: 'Send Order' }).click();
    await see(page, 'Order placed successfully!');
    await modal.waitFor({ state: 'hidden' });
    await headerBalance(page, `${(25 - total).toFixed(2)}$`);
    await see(page, 'Please check your Orders history to find the required information', 9000);

    // A double click on Send Order places one order: one key per submission.
    await page.goto('/category/Steam');
    const card = available(page)
      .filter({ hasText: /Steam \$5 Card/ })
      .first();
    const steam = (await card.locator('.card__name').textContent()) as string;
    await card.click();
    await modal.getByRole('button', { name: 'Send Order' }).dblclick();
    await see(page, 'Order placed successfully!');
    const stored = await walk.store().services.orders.storedOrders({ userId, productName: steam });
    expect(stored).toHaveLength(1);

    // More than the balance: refused in the modal with the spec's text.
    await available(page)
      .filter({ hasText: /Steam \$100 Card/ })
      .first()
      .click();
    await modal.getByRole('button', { name: 'Send Order' }).click();
    await see(page, /^Insufficient balance\. You have only \d+\.\d\d\$ in your balance$/);
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'hidden' });

    // My Orders: both orders, the followers with the param the customer typed.
    await page.getByRole('link', { name: 'My Orders' }).click();
    const rows = page.locator('.rows > li');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    await rows.filter({ hasText: product }).getByRole('button').click();
    await see(page, 'Additional Information');
    await page.getByText('https://instagram.com/raseed.walker').waitFor();
    await screenshot(page, 'my-orders');

    await page.getByRole('link', { name: 'My Payments' }).click();
    await page.locator('.rows > li').first().getByRole('button').click();
    await page.getByAltText('Transfer screenshot').waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('img[alt="Transfer screenshot"]');
      return !!img && img.complete && img.naturalWidth > 0 && !img.src.endsWith('/images/image.png');
    });
    await screenshot(page, 'my-payments');

    // The profile: the customer's own, with the transactions; another's is refused.
    await page.getByRole('button', { name: 'My Account' }).click();
    await page.getByRole('menuitem', { name: 'Profile' }).click();
    await see(page, `Welcome, ${username}!`);
    await page.locator('.table tbody tr').nth(2).waitFor();
    await screenshot(page, 'profile');
    const other = await walk.store().newCustomer();
    await page.goto(`/profile/${other.id}`);
    await see(page, 'You do not have permission to access this profile.');
    await page.waitForURL(`${walk.store().url}/`);

    // Logout: the toast, then Sign In after a second.
    await page.getByRole('button', { name: 'My Account' }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await see(page, 'Logged out successfully');
    await page.waitForURL('**/signin', { timeout: 5000 });
    await page.getByRole('link', { name: 'Register' }).waitFor();
    expect(faults(problems)).toEqual([]);
  });

  it('asks a visitor to sign in before ordering', async () => {
    const { page, problems } = await open();
    await page.goto(`/category/${encodeURIComponent('PUBG Mobile')}`);
    await available(page).first().click();
    await see(page, 'Please sign in first !');
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(faults(problems)).toEqual([]);
  });

  it('resets a forgotten password through the link in the e-mail', async () => {
    const { page, problems } = await open();
    const customer = await walk.store().newCustomer();
    await page.goto('/signin');
    await page.getByRole('link', { name: 'Forgot Password?' }).click();
    await page.getByLabel('Enter your registered email').fill(customer.email);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await see(page, 'Check your email for the reset link.');
    await screenshot(page, 'request-reset');

    const email = await walk.store().latestEmail(customer.email);
    const link = /https?:\/\/[^\s"<]+\/reset-password\/[\w-]+/.exec(email.text || email.html)?.[0];
    expect(link?.startsWith(walk.store().url)).toBe(true);
    await page.goto(link as string);
    await page.getByLabel('New Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await see(page, 'Password must be at least 8 characters');
    await page.getByLabel('New Password', { exact: true }).fill('a-brand-new-secret');
    await screenshot(page, 'reset-password');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await see(page, 'Password reset successful!');
    await page.waitForURL('**/signin', { timeout: 5000 });
    await signIn(page, customer.email, 'a-brand-new-secret');
    expect(faults(problems)).toEqual([]);
  });

  it('sends a Contact Us message to the admins', async () => {
    const { page, problems } = await open();
    await page.goto('/contact-us');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await see(page, 'Please enter a valid email address');
    await page.getByLabel('Email').fill('visitor@example.com');
    await page.getByLabel('Subject').fill('Where is my card?');
    await page.getByLabel('Message').fill('I ordered a Steam card an hour ago.');
    await screenshot(page, 'contact');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await see(page, 'Your message has been sent. We will get back to you soon.');
    // This file's admin receives no other e-mail.
    const mail = await walk.store().latestEmail(walk.store().adminEmail);
    expect(mail.subject).toBe('Contact: Where is my card?');
    expect(mail.replyTo?.[0]?.address).toBe('visitor@example.com');
    expect(faults(problems)).toEqual([]);
  });

  it.each(WIDTHS)('shows every customer screen at %i px', async (width) => {
    const { page, problems } = await open(width);
    const visitorScreens: [string, string, Locator][] = [
      ['home', '/', page.getByRole('link', { name: 'Games section' })],
      [
        'section',
        `/category/${encodeURIComponent('Games section')}`,
        page.getByRole('link', { name: 'PUBG Mobile' }),
      ],
      ['category', `/category/${encodeURIComponent('PUBG Mobile')}`, available(page)],
      ['signin', '/signin', page.getByRole('button', { name: 'Sign In' })],
      ['signup', '/signup', page.getByRole('button', { name: 'Sign Up' })],
      ['request-reset', '/request-reset-password', page.getByRole('button', { name: 'Send Reset Link' })],
      // The link's token is checked only when the new password is sent.
      [
        'reset-password',
        '/reset-password/a-link-token',
        page.getByRole('button', { name: 'Reset Password' }),
      ],
      ['about', '/about-us', page.getByText('Head office: Beirut, Lebanon')],
      ['contact', '/contact-us', page.getByRole('button', { name: 'Send Message' })],
      ['not-found', '/no-such-page', page.getByRole('link', { name: 'Back to home' })],
    ];
    for (const [name, path, key] of visitorScreens) {
      await page.goto(path);
      await look(page, `visitor-${name}`, key);
    }

    const customer = await walk.store().newCustomer();
    await walk.store().creditWallet(customer.id, 40);
    // One order of the customer's own, for My Orders' first row.
    const product = await walk.store().createProduct({ dollars: '6', params: 'Account e-mail' });
    await walk
      .store()
      .api()
      .post('/api/orders')
      .set('Authorization', `Bearer ${customer.token}`)
      .send({ product_id: product.id, quantity: 1, params: `Account e-mail:${customer.email}` })
      .expect(201);
    await signIn(page, customer.email, customer.password);
    await headerBalance(page, '34.00$');
    if (width === 375) {
      // The phone's menu opens from the toggle.
      await page.getByRole('button', { name: 'Open menu' }).click();
      await look(page, 'menu', page.getByRole('link', { name: 'My Orders' }));
      await page.getByRole('button', { name: 'Close menu' }).click();
    }
    await page.goto(`/category/${encodeURIComponent('PUBG Mobile')}`);
    await available(page).first().click();
    await look(page, 'order-modal', page.getByRole('dialog').getByRole('button', { name: 'Send Order' }));
    // Escape closes the modal, and focus stays inside it while open.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('dialog'))).toBe(true);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    const rows = page.locator('.rows > li');
    const customerScreens: [string, string, Locator][] = [
      ['charge', '/charge', page.getByRole('button', { name: 'Binance' })],
      ['my-orders', '/my-orders', rows.filter({ hasText: product.name })],
      ['my-payments', '/my-payments', rows.filter({ hasText: '40.00$' })],
      ['profile', `/profile/${customer.id}`, page.locator('.table tbody tr').filter({ hasText: '40.00$' })],
    ];
    for (const [name, path, key] of customerScreens) {
      await page.goto(path);
      await look(page, `customer-${name}`, key);
    }
    await see(page, `Welcome, ${customer.username}!`);
    // Nothing wider than the screen: usable at phone width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    expect(faults(problems)).toEqual([]);
  });
});
