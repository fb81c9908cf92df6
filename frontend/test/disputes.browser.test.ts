import { Types } from 'mongoose';
import { screenshot } from './support/browser';
import { faults, see, walkTheStore } from './support/walk';

/**
 * The back office's Disputed & Stuck page, in chromium against the whole store: an admin
 * delivers the code of an order the supplier completed after its refund, and accepts an order
 * the supplier has kept waiting for days; the customer reads the code in My Orders.
 */
const walk = walkTheStore();
const { open, signIn } = walk;

/** A paid supplier order as orders records it, left where the supplier's answers put it. */
async function supplierOrder(customer: { id: string; username: string }, extra: Record<string, unknown>) {
  const id = new Types.ObjectId();
  await walk
    .store()
    .services.orders.db.collection('orders')
    .insertOne({
      _id: id,
      userId: customer.id,
      username: customer.username,
      productId: 'p-1',
      productName: 'Steam card $5',
      kind: 'supplier',
      supplierId: '1',
      quantity: 1,
      unitPrice: 5_000_000,
      total: 5_000_000,
      params: '',
      fields: {},
      status: 'waiting',
      paid: true,
      failed: null,
      fingerprint: null,
      replay: null,
      externalId: null,
      reason: null,
      createdAt: new Date(),
      decidedAt: null,
      ...extra,
    });
  return id.toString();
}

describe('an admin on Disputed & Stuck', () => {
  it('delivers a late code once and accepts a stuck order, each seen where it should be', async () => {
    const admin = await open();
    const shopper = await open();
    const customer = await walk.store().newCustomer();
    await walk.store().creditWallet(customer.id, 20);
    // Refunded after its placement timed out; the supplier then completed it.
    const late = await supplierOrder(customer, {
      status: 'rejected',
      reason: 'The supplier could not take the order: The supplier did not answer within 10000 ms',
      decidedAt: new Date(),
    });
    await walk
      .store()
      .services.orders.db.collection('order_disputes')
      .insertOne({
        _id: late as never,
        kind: 'completed-after-refund',
        supplierReply: 'ABCD-EFGH-IJKL-MNOP',
        supplierOrderId: '4100777',
        at: new Date(),
        resolution: null,
      });
    // Waiting at the supplier for two days.
    const stuck = await supplierOrder(customer, {
      externalId: '4100778',
      createdAt: new Date(Date.now() - 2 * 24 * 3600_000),
    });

    await signIn(admin.page, walk.store().adminEmail, walk.store().adminPassword);
    await admin.page.goto('/admin');
    await admin.page.getByRole('link', { name: /^Disputed & Stuck/ }).click();
    await see(admin.page, 'Disputed & Stuck Orders');
    const disputed = admin.page.locator('.rows > li').filter({ hasText: late.slice(-8) });
    await disputed.getByText('ABCD-EFGH-IJKL-MNOP').waitFor();
    const waiting = admin.page.locator('.rows > li').filter({ hasText: stuck.slice(-8) });
    await waiting.getByLabel(/^Reply to the customer/).waitFor();
    await screenshot(admin.page, 'walk-admin-disputed-stuck');

    await disputed.getByRole('button', { name: 'Deliver the code' }).click();
    await see(admin.page, "The customer was charged again and now sees the supplier's code in My Orders.");
    await see(admin.page, 'No disputed orders found.');
    await waiting.getByLabel(/^Reply to the customer/).fill('CODE-BY-HAND-1');
    await waiting.getByRole('button', { name: 'Accept' }).click();
    await see(admin.page, 'Order has been accepted.');
    await see(admin.page, 'No stuck orders found.');

    await signIn(shopper.page, customer.email, customer.password);
    await shopper.page.goto('/my-orders');
    const mine = shopper.page.locator('.rows > li').filter({ hasText: late.slice(-8) });
    await mine.getByRole('button').click();
    await mine.getByText('ABCD-EFGH-IJKL-MNOP').waitFor();
    await screenshot(shopper.page, 'walk-customer-late-code');
    const balance = await walk
      .store()
      .api()
      .get('/api/balance')
      .set('Authorization', `Bearer ${customer.token}`)
      .expect(200);
    expect(balance.body.balance).toBe(15);
    expect(faults(admin.problems)).toEqual([]);
    expect(faults(shopper.problems)).toEqual([]);
  });
});
