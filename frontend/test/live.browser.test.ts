import { screenshot } from './support/browser';
import { faults, see, walkTheStore } from './support/walk';

/**
 * Pages that update themselves (issue 19): the customer's page stays open, untouched, while an
 * admin in another browser decides; what the customer sees changes through the live stream,
 * never a reload or a poll.
 */
const walk = walkTheStore();
const { open, signIn } = walk;

describe('pages that update themselves', () => {
  it("shows the customer's new balance as soon as an admin confirms the top-up, without a reload", async () => {
    const shopper = await open(1280);
    const admin = await open(1280);
    const customer = await walk.store().newCustomer();
    await walk.store().creditWallet(customer.id, 5);
    await signIn(shopper.page, customer.email, customer.password);
    const balance = shopper.page.getByTestId('header-balance');
    await balance.filter({ hasText: '5.00$' }).waitFor();
    // A mark that a reload would wipe.
    await shopper.page.evaluate(() => Object.assign(window, { untouched: true }));
    const polls: string[] = [];
    shopper.page.on('request', (req) => {
      if (/\/api\/(balance|debt)\b/.test(req.url())) polls.push(req.url());
    });
    // With the stream open, the header does not poll: 3 s without a single wallet request.
    await shopper.page.waitForTimeout(3_000);
    expect(polls).toEqual([]);

    await walk.store().topUp(customer.token, 20, 'Whish-Money');
    await signIn(admin.page, walk.store().adminEmail, walk.store().adminPassword);
    await admin.page.goto('/admin/active-payments');
    const row = admin.page.locator('.rows > li').filter({ hasText: customer.username });
    await row.getByRole('button').first().click();
    const confirmed = admin.page.waitForResponse(
      (res) => /\/api\/payments\/\w+\/update-status$/.test(res.url()) && res.status() === 200,
    );
    await row.getByRole('button', { name: 'Confirm' }).click();
    await confirmed;
    const decidedAt = Date.now();
    await balance.filter({ hasText: '25.00$' }).waitFor({ timeout: 15_000 });
    const shownAfter = Date.now() - decidedAt;
    console.log(`the new balance showed ${shownAfter} ms after the admin's confirmation was answered`);
    // Asked once, because the stream said so; the page was never reloaded.
    expect(polls.length).toBeGreaterThan(0);
    expect(await shopper.page.evaluate(() => (window as unknown as { untouched?: boolean }).untouched)).toBe(
      true,
    );
    await screenshot(shopper.page, 'live-balance');
    expect(faults(shopper.problems)).toEqual([]);
    expect(faults(admin.problems)).toEqual([]);
  });

  it("updates My Orders and the admin's Active Orders as orders are placed and decided", async () => {
    const shopper = await open(375);
    const admin = await open(1280);
    const customer = await walk.store().newCustomer();
    await walk.store().creditWallet(customer.id, 30);
    const product = await walk.store().createProduct({ dollars: '4', params: 'Account e-mail' });

    await signIn(admin.page, walk.store().adminEmail, walk.store().adminPassword);
    await admin.page.goto('/admin/active-orders');
    await admin.page.getByRole('heading', { name: 'Active Orders' }).waitFor();
    await signIn(shopper.page, customer.email, customer.password);
    await shopper.page.goto('/my-orders');
    await shopper.page.getByRole('heading', { name: 'My Orders' }).waitFor();

    // Placed elsewhere (another tab of the customer's): both open pages show it.
    const placed = await walk
      .store()
      .api()
      .post('/api/orders')
      .set('Authorization', `Bearer ${customer.token}`)
      .send({ product_id: product.id, quantity: 1, params: 'Account e-mail:live@example.com' })
      .expect(201);
    const orderId = placed.body.orderId as string;
    const waiting = admin.page.locator('.rows > li').filter({ hasText: orderId.slice(-8) });
    await waiting.waitFor({ timeout: 15_000 });
    const mine = shopper.page.locator('.rows > li').filter({ hasText: orderId.slice(-8) });
    await mine.filter({ hasText: /waiting/i }).waitFor({ timeout: 15_000 });
    await screenshot(shopper.page, 'live-my-orders-waiting');

    await waiting.getByRole('button', { name: 'Accept' }).click();
    await see(admin.page, 'Order has been accepted.');
    await mine.filter({ hasText: /confirmed|accepted/i }).waitFor({ timeout: 15_000 });
    await screenshot(shopper.page, 'live-my-orders-confirmed');
    expect(faults(shopper.problems)).toEqual([]);
    expect(faults(admin.problems)).toEqual([]);
  });
});
