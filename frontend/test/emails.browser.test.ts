import { eventually, waitForEmail } from '@raseed/kit/testing';
import type { Page } from 'playwright-core';
import { freshReceipt } from '../../services/payments/test/support';
import { screenshot, WIDTHS } from './support/browser';
import { faults, look, see, walkTheStore } from './support/walk';

/** Issue 19: e-mails to customers about their top-ups, and the profile switch that turns them off. */
const walk = walkTheStore();
const { open, signIn } = walk;

/** A Whish-Money top-up through Add Credit, with a receipt of its own. */
async function addCredit(page: Page, dollars: string): Promise<void> {
  await page.goto('/charge');
  await page.getByRole('button', { name: 'Whish-Money' }).click();
  await page.getByLabel('Amount ($)').fill(dollars);
  await page
    .getByLabel('Transfer screenshot')
    .setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: freshReceipt() });
  await page.getByRole('button', { name: 'Submit' }).click();
  await see(page, 'Payment submitted successfully!');
  await page.getByRole('dialog').waitFor({ state: 'hidden' });
}

/** The top-ups auth has heard were confirmed, so far. */
const confirmationsHeard = () =>
  walk.store().services.auth.db.collection('processed_events').countDocuments({ type: 'payment.confirmed' });

const emailSwitch = (page: Page) =>
  page.getByRole('switch', { name: 'E-mail me when my top-ups and orders are confirmed or rejected' });

describe("a customer's e-mails", () => {
  it('tells of a confirmed top-up, and none once the customer turns them off on the profile', async () => {
    const store = walk.store();
    const customer = await store.newCustomer();
    const { page, problems } = await open();
    await signIn(page, customer.email, customer.password);

    await addCredit(page, '25');
    await store.confirmTopUp(customer.email);
    const mail = await store.latestEmail(customer.email);
    expect(mail.subject).toBe('Your top-up of 25.00$ is confirmed');
    expect(mail.text).toContain(`Hello ${customer.username},`);
    expect(mail.text).toContain(
      'Your Whish-Money top-up of 25.00$ is confirmed and the amount is in your wallet.',
    );
    expect(mail.html).toContain(`<a href="${store.url}/my-payments">`);

    // The profile shows the switch on; turned off, it says so and stays off.
    await page.goto(`/profile/${customer.id}`);
    await see(page, `Welcome, ${customer.username}!`);
    await page.getByTestId('email-preference').filter({ hasText: 'On' }).waitFor();
    expect(await emailSwitch(page).isChecked()).toBe(true);
    await screenshot(page, 'profile-emails-on');
    await emailSwitch(page).click();
    await see(page, 'E-mails about your top-ups and orders are off.');
    await page.getByTestId('email-preference').filter({ hasText: 'Off' }).waitFor();
    await page.reload();
    await page.getByTestId('email-preference').filter({ hasText: 'Off' }).waitFor();
    expect(await emailSwitch(page).isChecked()).toBe(false);
    await screenshot(page, 'profile-emails-off');

    // The next confirmation sends nothing.
    const heard = await confirmationsHeard();
    await addCredit(page, '10');
    await store.confirmTopUp(customer.email);
    await eventually(async () => ((await confirmationsHeard()) > heard ? true : undefined), {
      what: 'auth to hear of the second confirmation',
    });
    await new Promise((r) => setTimeout(r, 2000));
    expect(await waitForEmail(customer.email, 0)).toHaveLength(1);
    expect(faults(problems)).toEqual([]);
  });

  it.each(WIDTHS)('shows the e-mail switch on the profile at %i px', async (width) => {
    const store = walk.store();
    const customer = await store.newCustomer();
    const { page, problems } = await open(width);
    await signIn(page, customer.email, customer.password);
    await page.goto(`/profile/${customer.id}`);
    await look(page, 'profile-emails', page.getByTestId('email-preference').filter({ hasText: 'On' }));
    expect(faults(problems)).toEqual([]);
  });
});
