import type { Page } from 'playwright-core';
import { screenshot, WIDTHS } from './support/browser';
import { faults, look, poll, see, walkTheStore } from './support/walk';

/** Issue 19: codes in stock, uploaded by an admin and delivered the moment a customer pays. */
const walk = walkTheStore();
const { open, signIn } = walk;

const counts = (page: Page, text: string) =>
  page.getByTestId('stock-counts').filter({ hasText: text }).waitFor({ timeout: 15_000 });

describe('codes in stock', () => {
  it('an admin pastes codes; a customer who orders gets one at once, reveals it and copies it', async () => {
    const store = walk.store();
    const product = await store.createProduct({ dollars: '3', params: 'Account e-mail' });

    // The admin gives the product a stock from the Create home page.
    const admin = await open();
    await signIn(admin.page, store.adminEmail, store.adminPassword);
    await admin.page.goto('/admin/create');
    await admin.page.getByRole('button', { name: `Codes of ${product.name}` }).click();
    await counts(admin.page, 'Available: 0');
    await admin.page
      .getByLabel(/Paste codes/)
      .fill('STEAM-WALK-0001,SN-1,4321\nSTEAM-WALK-0002\n\nSTEAM-WALK-0001\n');
    await admin.page.getByRole('button', { name: 'Add codes' }).click();
    await see(admin.page, '2 codes added (1 already in stock, 1 blank lines).');
    await counts(admin.page, 'Available: 2');
    // Masked: the back office never shows a code whole.
    await see(admin.page, '••••0001');
    expect(await admin.page.getByText('STEAM-WALK-0001').count()).toBe(0);
    await screenshot(admin.page, 'admin-stock-modal');

    // The customer orders and the order is confirmed at once.
    const customer = await store.newCustomer();
    await store.creditWallet(await store.userIdOf(customer.email), 10);
    const shopper = await open(1280, { permissions: ['clipboard-read', 'clipboard-write'] });
    await signIn(shopper.page, customer.email, customer.password);
    await shopper.page.goto('/category/Steam');
    await shopper.page
      .locator('[aria-label="Products"] button:enabled')
      .filter({ hasText: product.name })
      .click();
    const modal = shopper.page.getByRole('dialog');
    await modal.getByLabel('Account e-mail').fill('me@example.com');
    await modal.getByRole('button', { name: 'Send Order' }).click();
    await see(shopper.page, 'Order placed successfully!');
    const [order] = await store.services.orders.storedOrders({ productId: product.id });
    expect(order).toMatchObject({ status: 'confirmed', stocked: true });
    await shopper.page.goto('/my-orders');
    await shopper.page.getByText(`#${order!._id.toString().slice(-8)}`).click();
    await see(shopper.page, /Delivered: ••••000[12]/);
    await shopper.page.getByRole('button', { name: 'Reveal code' }).click();
    const code = shopper.page.getByText(/^STEAM-WALK-000[12]$/);
    await code.waitFor();
    const shown = await code.textContent();
    await shopper.page.getByRole('button', { name: 'Copy code 1' }).click();
    await see(shopper.page, 'Copied');
    expect(await shopper.page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
    await screenshot(shopper.page, 'my-orders-revealed-code');

    // The admin's counts follow the sale.
    await admin.page.reload();
    await admin.page.getByRole('button', { name: `Codes of ${product.name}` }).click();
    await counts(admin.page, 'Available: 1 · Sold: 1');
    expect(faults(admin.problems)).toEqual([]);
    expect(faults(shopper.problems)).toEqual([]);
  });

  it('sells the last 50 codes to 50 of 200 racing orders, as the admin, the buyers and the store then show', async () => {
    const store = walk.store();
    const product = await store.createProduct({ dollars: '1', params: 'Account e-mail' });
    const admin = await open(1280);
    await signIn(admin.page, store.adminEmail, store.adminPassword);
    await admin.page.goto('/admin/create');
    await admin.page.getByRole('button', { name: `Codes of ${product.name}` }).click();
    const codes = Array.from({ length: 50 }, (_, i) => `RACE-${String(i).padStart(4, '0')}-Q7`);
    await admin.page.getByLabel(/Paste codes/).fill(codes.join('\n'));
    await admin.page.getByRole('button', { name: 'Add codes' }).click();
    await counts(admin.page, 'Available: 50');

    const customers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const customer = await store.newCustomer();
        await store.creditWallet(customer.id, 10);
        return customer;
      }),
    );
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store
          .api()
          .post('/api/orders')
          .set('Authorization', `Bearer ${customers[i % 20]!.token}`)
          .send({ product_id: product.id, quantity: 1, params: 'Account e-mail:race@example.com' }),
      ),
    );
    const sold = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 409);
    expect([sold.length, refused.length]).toEqual([50, 150]);
    expect(new Set(refused.map((a) => a.body.error))).toEqual(new Set(['Out of stock']));

    // The admin's counts, and the store showing the product sold out.
    await admin.page.reload();
    await admin.page.getByRole('button', { name: `Codes of ${product.name}` }).click();
    await counts(admin.page, 'Available: 0 · Sold: 50');
    const first = answers.findIndex((a) => a.status === 201);
    const buyer = customers[first % 20]!;
    const shopper = await open(375, { permissions: ['clipboard-read', 'clipboard-write'] });
    await signIn(shopper.page, buyer.email, buyer.password);
    const card = shopper.page.locator('[aria-label="Products"] button').filter({ hasText: product.name });
    await expect(
      poll(
        async () => {
          await shopper.page.goto('/category/Steam');
          await card.waitFor();
          return card.filter({ hasText: 'Out of stock' }).count();
        },
        (n) => n === 1,
      ),
    ).resolves.toBe(1);

    // A buyer reveals one of the codes on a phone.
    await shopper.page.goto('/my-orders');
    const orderId = answers[first]!.body.orderId as string;
    await shopper.page.getByText(`#${orderId.slice(-8)}`).click();
    await shopper.page.getByRole('button', { name: 'Reveal code' }).click();
    const code = shopper.page.getByText(/^RACE-\d{4}-Q7$/);
    await code.waitFor();
    expect(codes).toContain(await code.textContent());
    await screenshot(shopper.page, 'my-orders-revealed-code');
    expect(faults(admin.problems)).toEqual([]);
    expect(faults(shopper.problems)).toEqual([]);
  });

  it.each(WIDTHS)(
    'shows a sold-out product dimmed, and on sale again once its admin takes orders by hand, at %i px',
    async (width) => {
      const store = walk.store();
      const product = await store.createProduct({ dollars: '2', params: 'Account e-mail' });
      const admin = await open(1280);
      await signIn(admin.page, store.adminEmail, store.adminPassword);
      await admin.page.goto('/admin/create');
      await admin.page.getByRole('button', { name: `Codes of ${product.name}` }).click();
      await admin.page.getByLabel(/Paste codes/).fill(`LAST-${width}-0001\n`);
      await admin.page.getByRole('button', { name: 'Add codes' }).click();
      await counts(admin.page, 'Available: 1');

      // The last code sold, the store shows the product out of stock, not orderable.
      const customer = await store.newCustomer();
      await store.creditWallet(await store.userIdOf(customer.email), 10);
      await store
        .api()
        .post('/api/orders')
        .set('Authorization', `Bearer ${customer.token}`)
        .send({ product_id: product.id, quantity: 1, params: 'Account e-mail:me@example.com' })
        .expect(201);
      const { page, problems } = await open(width);
      await signIn(page, customer.email, customer.password);
      const card = page.locator('[aria-label="Products"] button').filter({ hasText: product.name });
      await expect(
        poll(
          async () => {
            await page.goto('/category/Steam');
            await card.waitFor();
            return card.filter({ hasText: 'Out of stock' }).count();
          },
          (n) => n === 1,
        ),
      ).resolves.toBe(1);
      expect(await card.isDisabled()).toBe(true);
      await look(page, 'category-out-of-stock', card);

      // Its admin keeps it on sale: orders then wait for an admin.
      await admin.page.reload();
      await admin.page.getByRole('button', { name: `Codes of ${product.name}` }).click();
      await counts(admin.page, 'Available: 0 · Sold: 1');
      await admin.page.getByLabel('E-mail the admins at this many codes left (0: never)').fill('3');
      await admin.page.getByLabel(/keep it on sale/).check();
      await admin.page.getByRole('button', { name: 'Save settings' }).click();
      await see(admin.page, 'Stock settings saved.');
      await screenshot(admin.page, 'admin-stock-settings');
      await expect(
        poll(async () => {
          await page.goto('/category/Steam');
          await card.waitFor();
          return card.isEnabled();
        }, Boolean),
      ).resolves.toBe(true);
      expect(await card.filter({ hasText: 'Out of stock' }).count()).toBe(0);
      expect(faults(problems)).toEqual([]);
      expect(faults(admin.problems)).toEqual([]);
    },
  );

  it.each(WIDTHS)('shows the stock modal at %i px', async (width) => {
    const store = walk.store();
    const product = await store.createProduct({ dollars: '2' });
    const { page, problems } = await open(width);
    await signIn(page, store.adminEmail, store.adminPassword);
    await page.goto('/admin/create');
    await page.getByRole('button', { name: `Codes of ${product.name}` }).click();
    await look(page, 'admin-stock', page.getByRole('button', { name: 'Add codes' }));
    expect(faults(problems)).toEqual([]);
  });
});
