import type { Locator, Page } from 'playwright-core';
import { IMAGE } from '../../services/catalog/test/support';
import { screenshot, WIDTHS, type Width } from './support/browser';
import { checkA11y } from './support/a11y';
import { faults, see, walkTheStore } from './support/walk';

/**
 * The catalogue screens of the back office in chromium, against the whole store: an admin
 * creates, switches, prices and pictures; a customer sees each change in the storefront.
 */
const walk = walkTheStore();
const { open, signIn } = walk;

const unique = (prefix: string) => `${prefix} ${Date.now().toString(36)}`;

/** The storefront's card of a product, by its exact name. */
const productCard = (page: Page, name: string): Locator =>
  page
    .getByRole('list', { name: 'Products' })
    .getByRole('button')
    .filter({ has: page.getByText(name, { exact: true }) });

/** Nothing wider than the screen: usable at phone width. */
async function fits(page: Page, width: Width) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
}

/** A category made through the API, as the form makes it; answers its id. */
async function createCategory(name: string, section: string): Promise<string> {
  const token = await walk.store().signIn(walk.store().adminEmail, walk.store().adminPassword);
  const res = await walk
    .store()
    .api()
    .post('/api/create/category')
    .set('Authorization', `Bearer ${token}`)
    .field('categoryName', name)
    .field('section', section)
    .attach('image', IMAGE)
    .expect(201);
  return res.body.category.id as string;
}

/** A supplier product's price in dollars (6 decimals) with a profit multiplier, rounded as the server rounds it. */
const withProfit = (price: number, multiplier: number) =>
  Math.round((Math.round(price * 1e6) * Math.round(multiplier * 1e4)) / 1e4) / 1e6;

describe('an admin in the catalogue back office', () => {
  it('creates a category and a product a customer orders, then switches, reprices and deletes', async () => {
    const started = Date.now();
    const admin = await open();
    const { page } = admin;
    await signIn(page, walk.store().adminEmail, walk.store().adminPassword);

    // Create Category: the form's checks first, then the category in the Cards section.
    const category = unique('Walk Cards');
    await page.goto('/admin/create');
    await page.getByRole('link', { name: 'Create Category' }).click();
    await page.waitForURL('**/admin/create/category');
    await page.getByRole('button', { name: 'Create Category' }).click();
    await see(page, 'Please fill all fields and upload an image.');
    await page.getByLabel('Category Name').fill(category);
    await page.getByLabel('Section').selectOption('Cards section');
    const image = page.getByLabel('Image');
    await image.setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('not a picture'),
    });
    await see(page, 'Only JPG/JPEG/PNG files are allowed');
    expect(await image.inputValue()).toBe('');
    await image.setInputFiles({
      name: 'huge.png',
      mimeType: 'image/png',
      buffer: Buffer.alloc(3 * 1024 * 1024 + 1),
    });
    await see(page, 'Image must be smaller than 3MB');
    expect(await image.inputValue()).toBe('');
    await page.getByRole('button', { name: 'Create Category' }).click();
    await see(page, 'Please fill all fields and upload an image.');
    await image.setInputFiles(IMAGE);
    await page.getByRole('button', { name: 'Create Category' }).click();
    await see(page, 'Category created!');
    const stored = await walk
      .store()
      .services.catalog.db.collection('categories')
      .findOne({ name: category });
    expect(stored?.section).toBe('Cards section');

    // Create Product in it: Additional Info and two extra fields, names cleaned as typed.
    const product = unique('Walk Gift');
    await page.goto('/admin/create/product');
    await page.getByLabel('Product Name').fill(product);
    await page.getByLabel('Price ($)').fill('7.5');
    await page.getByLabel('Image').setInputFiles(IMAGE);
    await page.getByRole('button', { name: 'Create Product' }).click();
    await see(page, 'Select an existing category or create one first.');
    await page.getByLabel('Additional Info (optional)').fill('Account username');
    await page.getByLabel('Category Name').selectOption({ label: category });
    const add = page.getByRole('button', { name: 'Add New Field' });
    await add.click();
    await add.click();
    await add.click();
    await page.getByLabel('Field 1 name').pressSequentially('player id!');
    expect(await page.getByLabel('Field 1 name').inputValue()).toBe('player_id_');
    // The value shows only once a type is chosen, as a number input for NUMBER.
    expect(await page.getByLabel('Field 1 value').count()).toBe(0);
    await page.getByLabel('Field 1 type').selectOption('TEXT');
    await page.getByLabel('Field 1 value').fill('Global server');
    await page.getByLabel('Field 2 name').pressSequentially('Zone-Id');
    expect(await page.getByLabel('Field 2 name').inputValue()).toBe('Zone_Id');
    await page.getByLabel('Field 2 type').selectOption('NUMBER');
    expect(await page.getByLabel('Field 2 value').getAttribute('type')).toBe('number');
    await page.getByLabel('Field 2 value').fill('42');
    await page.getByRole('button', { name: 'Remove field 3' }).click();
    expect(await page.getByLabel('Field 3 name').count()).toBe(0);
    await page.getByRole('button', { name: 'Create Product' }).click();
    await see(page, 'Product created!');
    const created = await walk.store().services.catalog.db.collection('products').findOne({ name: product });
    expect(created).toMatchObject({
      categoryName: category,
      parentId: String(stored?._id),
      params: ['Account username'],
      fields: [
        { name: 'player_id_', type: 'TEXT', value: 'Global server' },
        { name: 'Zone_Id', type: 'NUMBER', value: '42' },
      ],
    });

    // Create home lists both, the price as an amount followed by $.
    await page.goto('/admin/create');
    const row = page.locator('tr', { hasText: product });
    await row.getByText('7.50$').waitFor();
    await row.getByText(category).waitFor();
    await page.locator('tr', { hasText: category }).getByText('Cards section').waitFor();

    // A customer finds it: the section, the category, the product, and orders it with the param.
    const customer = await walk.store().newCustomer();
    await walk.store().creditWallet(customer.id, 20);
    const shopper = await open();
    const shop = shopper.page;
    await signIn(shop, customer.email, customer.password);
    await shop.getByRole('link', { name: 'Cards section' }).click();
    await see(shop, 'Products in Cards section');
    await shop.getByRole('link', { name: category }).click();
    await see(shop, `Products in ${category}`);
    await productCard(shop, product).click();
    const modal = shop.getByRole('dialog');
    await modal.getByRole('button', { name: 'Send Order' }).click();
    await see(shop, 'Please fill all required fields.');
    await modal.getByPlaceholder('Enter Account username').fill('walker_01');
    await modal.getByRole('button', { name: 'Send Order' }).click();
    await see(shop, 'Order placed successfully!');
    const orders = await walk
      .store()
      .services.orders.storedOrders({ userId: customer.id, productName: product });
    expect(orders).toHaveLength(1);
    expect(orders[0]?.params).toBe('Account username:walker_01');

    // Switched off on Create home: dimmed and disabled in the walk.store().
    await page.getByRole('switch', { name: `Status of ${product}` }).click();
    await see(page, 'The product is now Disabled!');
    expect(await page.getByRole('switch', { name: `Status of ${product}` }).isChecked()).toBe(false);
    await shop.reload();
    await productCard(shop, product).waitFor();
    expect(await productCard(shop, product).isDisabled()).toBe(true);
    expect(await productCard(shop, product).getAttribute('class')).toContain('card--unavailable');
    await screenshot(shop, 'admin-walk-unavailable');

    // A switch the store refuses goes back where it was, with the spec's text: another admin
    // deleted the product meanwhile, so the catalogue answers 404.
    const gone = await walk.store().createProduct({ category, dollars: '2' });
    await page.reload();
    await page.getByRole('switch', { name: `Status of ${gone.name}`, checked: true }).waitFor();
    await walk
      .store()
      .api()
      .delete(`/api/delete/product/${gone.id}`)
      .set('Authorization', `Bearer ${await walk.store().signIn(walk.store().adminEmail)}`)
      .expect(200);
    await page.getByRole('switch', { name: `Status of ${gone.name}` }).click();
    await see(page, 'Failed to update the product. Please try again.');
    // It goes back once the refusal is in: waited for, as the message may come a moment first.
    await page
      .getByRole('switch', { name: `Status of ${gone.name}`, checked: true })
      .waitFor({ timeout: 5_000 });
    await page.getByRole('switch', { name: `Status of ${product}` }).click();
    await see(page, 'The product is now Active!');

    // The category off and on again: the section no longer lists it while it is off.
    await page.getByRole('switch', { name: `Status of ${category}` }).click();
    await see(page, 'The category is now Disabled!');
    await shop.goto(`/category/${encodeURIComponent('Cards section')}`);
    await shop.getByRole('link', { name: 'Steam' }).waitFor();
    expect(await shop.getByRole('link', { name: category }).count()).toBe(0);
    await page.getByRole('switch', { name: `Status of ${category}` }).click();
    await see(page, 'The category is now Active!');

    // A new price through the edit modal; a bad one is refused first.
    await row.getByRole('button', { name: `Edit ${product}` }).click();
    const editor = page.getByRole('dialog');
    await editor.getByText('Current price: 7.50$').waitFor();
    await editor.getByRole('button', { name: 'Save' }).click();
    await see(page, 'Please enter a valid number for the price');
    await editor.getByLabel('New price ($)').fill('9.25');
    await editor.getByRole('button', { name: 'Save' }).click();
    await see(page, 'Product updated successfully!');
    await row.getByText('9.25$').waitFor();
    await shop.goto(`/category/${encodeURIComponent(category)}`);
    await productCard(shop, product).getByText('9.25$').waitFor();

    // Delete asks first, then the product leaves the table.
    const doomed = await walk.store().createProduct({ category, dollars: '3' });
    await page.reload();
    await page
      .locator('tr', { hasText: doomed.name })
      .getByRole('button', { name: `Delete ${doomed.name}` })
      .click();
    await page.getByText('Are you sure you want to delete this product?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await see(page, 'Product deleted successfully!');
    await page.locator('tr', { hasText: doomed.name }).waitFor({ state: 'detached' });

    // Api Products: one profit for all, then this product's own; the store charges it.
    await page.goto('/admin/ApiProducts');
    await page.getByRole('list', { name: 'Supplier products' }).waitFor();
    await page.getByRole('button', { name: 'Update Profit % For All' }).click();
    await see(page, 'Please enter a percentage');
    await page.getByLabel('Profit % for all products').fill('10');
    await page.getByRole('button', { name: 'Update Profit % For All' }).click();
    await see(page, 'Percentage updated successfully');
    const supplied = 'PUBG Mobile 60 UC';
    await page.getByLabel('Search by name').fill(supplied.toLowerCase());
    const card = page
      .getByRole('list', { name: 'Supplier products' })
      .getByRole('listitem')
      .filter({ has: page.getByText(supplied, { exact: true }) });
    await card.getByRole('button', { name: `Edit ${supplied}` }).click();
    const edit = page.getByRole('dialog');
    await edit.getByText('Original profit percentage').waitFor();
    const apiPrice = Number(
      (
        await edit
          .locator('div', { has: page.locator('dt', { hasText: 'Original API price' }) })
          .locator('dd')
          .textContent()
      )?.replace('$', ''),
    );
    expect(apiPrice).toBeGreaterThan(0);
    await edit.locator('dd', { hasText: '10.00%' }).waitFor();
    const profit = edit.getByLabel('New Profit %');
    await profit.pressSequentially('12.5a.7');
    expect(await profit.inputValue()).toBe('12.57');
    await profit.fill('');
    await profit.pressSequentially('12.5');
    const expected = withProfit(apiPrice, 1.125);
    await edit
      .getByTestId('new-price')
      .filter({ hasText: `${expected.toFixed(6)}$` })
      .waitFor();
    await edit.getByLabel('Image').setInputFiles(IMAGE);
    await screenshot(page, 'admin-walk-edit-product');
    await edit.getByRole('button', { name: 'Save' }).click();
    // Not the Create home's 'Product updated successfully!' from before.
    await see(page, /^Product updated successfully$/);
    await edit.waitFor({ state: 'hidden' });
    await card.getByText(`${expected.toFixed(6)}$`).waitFor();
    await shop.goto(`/category/${encodeURIComponent('PUBG Mobile')}`);
    await productCard(shop, supplied)
      .getByText(`${expected.toFixed(2)}$`)
      .waitFor();
    expect(await productCard(shop, supplied).locator('img').getAttribute('src')).toMatch(
      /^\/api\/catalog\/images\//,
    );

    // Api Categories: the sections are not listed; a new picture for Steam shows in the walk.store().
    await page.goto('/admin/ApiCategories');
    const categories = page.getByRole('list', { name: 'Supplier categories' });
    await categories.getByText('Steam', { exact: true }).waitFor();
    for (const section of ['Cards section', 'Games section', 'Social Media Section']) {
      expect(await categories.getByText(section, { exact: true }).count()).toBe(0);
    }
    await page.getByRole('button', { name: 'Edit Steam' }).click();
    const picture = page.getByRole('dialog');
    await picture.getByRole('button', { name: 'Save' }).click();
    await see(page, 'Please select an image to upload.');
    await picture.getByLabel('New image').setInputFiles(IMAGE);
    await picture.getByRole('button', { name: 'Save' }).click();
    await see(page, 'Category updated successfully.');
    await picture.waitFor({ state: 'hidden' });
    await shop.goto(`/category/${encodeURIComponent('Cards section')}`);
    await shop.getByRole('link', { name: 'Steam' }).waitFor();
    expect(await shop.getByRole('link', { name: 'Steam' }).locator('img').getAttribute('src')).toMatch(
      /^\/api\/catalog\/images\//,
    );

    expect(faults(admin.problems, [`answered 404 PUT /api/products/${gone.id}/availability`])).toEqual([]);
    expect(faults(shopper.problems)).toEqual([]);
    console.log(`the admin's catalogue walk took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  it.each(WIDTHS)('shows every catalogue screen at %i px', async (width) => {
    const { page, problems } = await open(width);
    const category = unique(`Screen ${width}`);
    await createCategory(category, 'Games section');
    const product = await walk.store().createProduct({ category, dollars: '12.5' });
    await signIn(page, walk.store().adminEmail, walk.store().adminPassword);

    await page.goto('/admin/create');
    await page.locator('tr', { hasText: product.name }).waitFor();
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'admin-create-home');
    await checkA11y(page, 'admin-create-home');
    await fits(page, width);
    await page.getByRole('button', { name: `Edit ${product.name}` }).click();
    await page.getByRole('dialog').getByText('Current price: 12.50$').waitFor();
    await screenshot(page, 'admin-edit-price');
    await checkA11y(page, 'admin-edit-price');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: `Delete ${product.name}` }).click();
    await page.getByText('Are you sure you want to delete this product?').waitFor();
    await screenshot(page, 'admin-delete-product');
    await checkA11y(page, 'admin-delete-product');
    await page.keyboard.press('Escape');

    await page.goto('/admin/create/category');
    await page.getByLabel('Category Name').waitFor();
    await screenshot(page, 'admin-create-category');
    await checkA11y(page, 'admin-create-category');
    await fits(page, width);

    await page.goto('/admin/create/product');
    await page.getByLabel('Category Name').waitFor();
    await page.getByRole('button', { name: 'Add New Field' }).click();
    await page.getByRole('button', { name: 'Add New Field' }).click();
    await page.getByLabel('Field 1 name').fill('player_id');
    await page.getByLabel('Field 1 type').selectOption('TEXT');
    await screenshot(page, 'admin-create-product');
    await checkA11y(page, 'admin-create-product');
    await fits(page, width);

    await page.goto('/admin/ApiProducts');
    await page.getByRole('list', { name: 'Supplier products' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('list', { name: 'Supplier products' }).getByRole('listitem').count()).toBe(
      50,
    );
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    await screenshot(page, 'admin-api-products');
    await checkA11y(page, 'admin-api-products');
    await fits(page, width);
    await page
      .getByRole('button', { name: /^Edit / })
      .first()
      .click();
    await page.getByRole('dialog').getByText('Original API price').waitFor();
    await screenshot(page, 'admin-api-product-modal');
    await checkA11y(page, 'admin-api-product-modal');
    await page.keyboard.press('Escape');

    await page.goto('/admin/ApiCategories');
    await page.getByRole('list', { name: 'Supplier categories' }).waitFor();
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'admin-api-categories');
    await checkA11y(page, 'admin-api-categories');
    await fits(page, width);
    await page.getByRole('button', { name: 'Edit PUBG Mobile' }).click();
    await page.getByRole('dialog').getByLabel('New image').waitFor();
    await screenshot(page, 'admin-api-category-modal');
    await checkA11y(page, 'admin-api-category-modal');
    await page.keyboard.press('Escape');
    expect(faults(problems)).toEqual([]);
  });
});
