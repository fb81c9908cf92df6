import {
  createQueue,
  DEV_SECRETS,
  hourKey,
  redisConnection,
  type EventEnvelope,
  type RunningService,
} from '@raseed/kit';
import {
  caughtUp,
  dropDatabase,
  eventually,
  openDatabase,
  publishEvents,
  republishEvents,
  testEnv,
  uniqueName,
  waitForEmail,
  type CaughtEmail,
} from '@raseed/kit/testing';
import type { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import { Types, type Connection } from 'mongoose';
import { loadOrdersConfig, type OrdersConfig } from '../../orders/src/config';
import { CodeVault, maskCode, type CodeContent } from '../../orders/src/domain/codes';
import { startOrders } from '../../orders/src/service';
import { DIGEST_QUEUE } from '../src/jobs/digest';
import { EMAIL_QUEUE, emailQueue, type Email } from '../src/jobs/email';
import { bearer, PASSWORD, startTestAuth, type TestAuth } from './support';

/**
 * The customers' top-up and order e-mails, the admins' digest and low-stock e-mails, from the
 * real events through Kafka to the mail catcher; an order's codes are read from the real orders
 * service.
 */
let auth: TestAuth;
let redis: IORedis;
let emails: Queue<Email>;
let digests: Queue<{ reason: string }>;
let orders: RunningService;
let ordersConfig: OrdersConfig;
let ordersDb: Connection;
beforeAll(async () => {
  // Orders answers the codes of its orders; the wallet and catalog it calls are not needed here.
  ordersConfig = loadOrdersConfig(
    testEnv('orders', { WALLET_URL: 'http://127.0.0.1:9', CATALOG_URL: 'http://127.0.0.1:9' }),
  );
  orders = await startOrders(ordersConfig);
  ordersDb = await openDatabase(ordersConfig.MONGO_DB);
  auth = await startTestAuth({ ADMIN_DIGEST_EVERY_SECONDS: '1', ORDERS_URL: orders.url });
  redis = redisConnection(auth.config.REDIS_URL);
  emails = emailQueue(redis, auth.service.context.logger, auth.config.QUEUE_PREFIX);
  digests = createQueue(DIGEST_QUEUE, redis, auth.service.context.logger, auth.config.QUEUE_PREFIX);
});
afterAll(async () => {
  await digests.resume();
  await Promise.all([emails.close(), digests.close()]);
  await redis.quit();
  await auth.stop();
  await orders.stop();
  await ordersDb.close();
  await dropDatabase(ordersConfig.MONGO_DB);
});

const newId = () => new Types.ObjectId().toString();

/** Waits until auth's consumer has applied the event (its id remembered). */
async function applied(event: EventEnvelope): Promise<void> {
  const marker = `${auth.config.KAFKA_GROUP}:${event.id}`;
  await eventually(
    async () =>
      (await auth.db.collection('processed_events').countDocuments({ _id: marker as never }))
        ? true
        : undefined,
    { what: `event ${event.type} ${event.id} applied` },
  );
}

/** The customer's one e-mail, once it arrived; fails if there are more. */
async function onlyEmail(address: string): Promise<CaughtEmail> {
  const mails = await waitForEmail(address);
  expect(mails).toHaveLength(1);
  return mails[0]!;
}

/**
 * An order of `codes.length` gift cards confirmed from stock, as orders records it (the codes
 * sealed, each claimed by the order, the decision taken); answers its id and reply.
 */
async function stockedOrder(
  userId: string,
  codes: CodeContent[],
): Promise<{ orderId: string; replay: string }> {
  const vault = new CodeVault(DEV_SECRETS.CODES_KEY);
  const orderId = new Types.ObjectId();
  const id = orderId.toString();
  const productId = `c-${newId()}`;
  const replay = `Delivered: ${codes.map((c) => maskCode(c.code)).join(', ')}. Reveal the full code in My Orders.`;
  const now = new Date();
  const stocked = codes.map((content, slot) => ({
    _id: new Types.ObjectId(),
    productId,
    digest: vault.digest(productId, content.code),
    sealed: vault.seal(productId, content),
    mask: maskCode(content.code),
    expiresAt: null,
    batchId: newId(),
    claimedBy: id,
    at: now,
    slot,
  }));
  await ordersDb.collection('stock_codes').insertMany(stocked.map(({ slot: _, ...code }) => code));
  await ordersDb
    .collection('stock_claims')
    .insertMany(
      stocked.map((c) => ({ _id: c._id.toString() as never, orderId: id, productId, slot: c.slot, at: now })),
    );
  await ordersDb.collection('orders').insertOne({
    _id: orderId,
    userId,
    username: 'buyer',
    productId,
    productName: 'Gift card',
    kind: 'created',
    supplierId: null,
    quantity: codes.length,
    unitPrice: 2_000_000,
    total: 2_000_000 * codes.length,
    params: '',
    fields: {},
    status: 'confirmed',
    paid: true,
    failed: null,
    fingerprint: null,
    stocked: true,
    replay,
    externalId: null,
    reason: null,
    createdAt: now,
    hour: hourKey(now),
    decidedAt: now,
  });
  await ordersDb
    .collection('order_decisions')
    .insertOne({ _id: id as never, action: 'confirmed', replay, reason: null, by: 'stock', at: now });
  return { orderId: id, replay };
}

const topUp = (userId: string, amount: number, productName = 'Whish-Money', type: 'IN' | 'OUT' = 'IN') => ({
  key: userId,
  data: {
    paymentId: newId(),
    userId,
    type,
    amount,
    productName,
    asDebt: false,
    confirmedAt: new Date().toISOString(),
  },
});

describe("a customer's e-mails", () => {
  it('tells of a confirmed top-up, and of no admin credit or withdrawal', async () => {
    const customer = await auth.newCustomer();
    // One topic and one key: the admin's payments are applied before the top-up.
    const [credit, withdrawal, confirmed] = await publishEvents(
      'payment.confirmed',
      topUp(customer.id, 7_000_000, 'Payment'),
      topUp(customer.id, 2_000_000, 'Payment', 'OUT'),
      topUp(customer.id, 25_500_000),
    );
    const mail = await onlyEmail(customer.email);
    expect(mail.subject).toBe('Your top-up of 25.50$ is confirmed');
    expect(mail.text).toContain(`Hello ${customer.username},`);
    expect(mail.text).toContain(
      'Your Whish-Money top-up of 25.50$ is confirmed and the amount is in your wallet.',
    );
    expect(mail.text).toContain(`My Payments: ${auth.config.PUBLIC_URL}/my-payments`);
    expect(mail.text).toContain(`${auth.config.PUBLIC_URL}/profile/${customer.id}`);
    expect(mail.html).toContain(`<a href="${auth.config.PUBLIC_URL}/my-payments">`);
    expect(mail.to.map((t) => t.address)).toEqual([customer.email]);
    for (const event of [credit!, withdrawal!, confirmed!]) await applied(event);
    expect(await emails.getJob(`notice-${credit!.id}`)).toBeUndefined();
    expect(await emails.getJob(`notice-${withdrawal!.id}`)).toBeUndefined();
  });

  it('tells of a rejected top-up', async () => {
    const customer = await auth.newCustomer();
    await publishEvents('payment.rejected', {
      key: customer.id,
      data: { paymentId: newId(), userId: customer.id, amount: 12_000_000 },
    });
    const mail = await onlyEmail(customer.email);
    expect(mail.subject).toBe('Your top-up of 12.00$ was rejected');
    expect(mail.text).toContain('Your top-up of 12.00$ was rejected, so nothing was added to your wallet.');
    expect(mail.html).toContain('<p style="white-space: pre-wrap">Your top-up of 12.00$ was rejected');
  });

  it('tells of a confirmed order with its reply, escaped in the HTML, and once when the event comes again', async () => {
    const customer = await auth.newCustomer();
    const orderId = newId();
    const replay = 'Delivered: ••••0001. Reveal the full code in My Orders. <script>alert(1)</script>';
    const [event] = await publishEvents('order.confirmed', {
      key: customer.id,
      data: { orderId, userId: customer.id, total: 3_000_000, replay },
    });
    const mail = await onlyEmail(customer.email);
    expect(mail.subject).toBe(`Your order #${orderId.slice(-8)} is confirmed`);
    expect(mail.text).toContain(`Your order #${orderId.slice(-8)} of 3.00$ is confirmed.`);
    expect(mail.text).toContain(replay);
    expect(mail.html).toContain(
      'Reveal the full code in My Orders. &#60;script&#62;alert(1)&#60;/script&#62;',
    );
    expect(mail.html).not.toContain('<script>');

    // A redelivery after a crash between the e-mail and remembering the event: no second e-mail.
    await applied(event!);
    await auth.db
      .collection('processed_events')
      .deleteOne({ _id: `${auth.config.KAFKA_GROUP}:${event!.id}` as never });
    await republishEvents('order.confirmed', event!);
    await applied(event!);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await waitForEmail(customer.email)).toHaveLength(1);
  });

  it('carries the codes of an order delivered from stock whole, never in the queued job', async () => {
    const customer = await auth.newCustomer();
    const codes = [
      { code: 'GIFT-<7777>&"Q"', serial: 'SN-42', pin: '0099', expires: '2099-12-31' },
      { code: 'GIFT-8888-PLAIN' },
    ];
    const { orderId, replay } = await stockedOrder(customer.id, codes);
    const [event] = await publishEvents('order.confirmed', {
      key: customer.id,
      data: { orderId, userId: customer.id, total: 4_000_000, replay },
    });
    const mail = await onlyEmail(customer.email);
    expect(mail.subject).toBe(`Your order #${orderId.slice(-8)} is confirmed`);
    expect(mail.text).toContain(replay);
    expect(mail.text).toContain(
      'Your 2 codes:\n\nCode: GIFT-<7777>&"Q", Serial: SN-42, PIN: 0099, Expires: 2099-12-31\nCode: GIFT-8888-PLAIN',
    );
    expect(mail.html).toContain(
      'Code: GIFT-&#60;7777&#62;&#38;&#34;Q&#34;, Serial: SN-42, PIN: 0099, Expires: 2099-12-31\nCode: GIFT-8888-PLAIN',
    );
    expect(mail.html).not.toContain('GIFT-<7777>');

    // What waits in Redis (and shows on the queue board) holds the codes sealed only.
    const job = await emails.getJob(`notice-${event!.id}`);
    expect(job?.data.sealed).toEqual(expect.any(String));
    const stored = JSON.stringify(
      await redis.hgetall(`${auth.config.QUEUE_PREFIX}:${EMAIL_QUEUE}:notice-${event!.id}`),
    );
    expect(stored).toContain('{{secret}}');
    for (const secret of ['GIFT-<7777>', '7777', 'GIFT-8888-PLAIN', 'SN-42', '0099']) {
      expect(stored).not.toContain(secret);
      expect(JSON.stringify(job!.data)).not.toContain(secret);
    }
  });

  it('sends no codes, and no e-mail, to a customer who turned order e-mails off', async () => {
    const customer = await auth.newCustomer();
    await auth
      .http()
      .put('/api/users/me/emails')
      .set(bearer(customer.token))
      .send({ email_notifications: false })
      .expect(200);
    const { orderId, replay } = await stockedOrder(customer.id, [{ code: 'GIFT-QUIET-0001' }]);
    const [event] = await publishEvents('order.confirmed', {
      key: customer.id,
      data: { orderId, userId: customer.id, total: 2_000_000, replay },
    });
    await applied(event!);
    expect(await emails.getJob(`notice-${event!.id}`)).toBeUndefined();
    expect(await waitForEmail(customer.email, 0).catch(() => [])).toEqual([]);
  });

  it('tells of a rejected order with the refund and the reason', async () => {
    const customer = await auth.newCustomer();
    const orderId = newId();
    await publishEvents('order.rejected', {
      key: customer.id,
      data: { orderId, userId: customer.id, total: 4_250_000, reason: 'Out of stock & <gone>' },
    });
    const mail = await onlyEmail(customer.email);
    expect(mail.subject).toBe(`Your order #${orderId.slice(-8)} was rejected`);
    expect(mail.text).toContain(`Your order #${orderId.slice(-8)} was rejected: Out of stock & <gone>`);
    expect(mail.text).toContain('Its 4.25$ went back to your wallet.');
    expect(mail.html).toContain('Out of stock &#38; &#60;gone&#62;');
  });

  it('sends none to a customer who turned them off, while a password reset still comes', async () => {
    const customer = await auth.newCustomer();
    const off = await auth
      .http()
      .put('/api/users/me/emails')
      .set(bearer(customer.token))
      .send({ email_notifications: false })
      .expect(200);
    expect(off.body).toEqual({ success: true, email_notifications: false });
    const [confirmed] = await publishEvents('payment.confirmed', topUp(customer.id, 5_000_000));
    const [rejected] = await publishEvents('order.rejected', {
      key: customer.id,
      data: { orderId: newId(), userId: customer.id, total: 1_000_000, reason: null },
    });
    await applied(confirmed!);
    await applied(rejected!);
    expect(await emails.getJob(`notice-${confirmed!.id}`)).toBeUndefined();
    expect(await emails.getJob(`notice-${rejected!.id}`)).toBeUndefined();

    await auth.http().post('/api/reset-password-request').send({ email: customer.email }).expect(200);
    const mail = await onlyEmail(customer.email);
    expect(mail.subject).toBe('Reset your Raseed password');
  });
});

describe('the e-mail preference', () => {
  it("reads and changes the signed-in user's own, and refuses a visitor and a bad body", async () => {
    const customer = await auth.newCustomer();
    const read = () => auth.http().get('/api/users/me/emails').set(bearer(customer.token)).expect(200);
    expect((await read()).body).toEqual({ success: true, email_notifications: true });

    await auth.http().get('/api/users/me/emails').expect(401);
    await auth.http().put('/api/users/me/emails').send({ email_notifications: false }).expect(401);
    for (const body of [{}, { email_notifications: 'no' }, { email_notifications: null }, []]) {
      const res = await auth
        .http()
        .put('/api/users/me/emails')
        .set(bearer(customer.token))
        .send(body)
        .expect(400);
      expect(res.body).toEqual({ success: false, error: 'email_notifications must be true or false.' });
    }
    expect((await read()).body).toEqual({ success: true, email_notifications: true });

    await auth
      .http()
      .put('/api/users/me/emails')
      .set(bearer(customer.token))
      .send({ email_notifications: false })
      .expect(200);
    expect((await read()).body).toEqual({ success: true, email_notifications: false });
    await auth
      .http()
      .put('/api/users/me/emails')
      .set(bearer(customer.token))
      .send({ email_notifications: true })
      .expect(200);
    expect((await read()).body).toEqual({ success: true, email_notifications: true });
  });
});

describe("the admins' low-stock e-mail", () => {
  it('tells every admin once of a product running low, with a link to add codes, even when the event comes again', async () => {
    const admin = await auth.adminToken();
    const second = `${uniqueName('admin')}@raseed.test`;
    await auth
      .http()
      .post('/api/create-admin')
      .set(bearer(admin))
      .send({ username: uniqueName('admin'), email: second, password: PASSWORD, phone: '+961 70 000000' })
      .expect(201);
    const admins = (await auth.db.collection('users').find({ role: 'admin' }).toArray()).map(
      (a) => a.email as string,
    );
    expect(admins).toContain(second);
    const productName = `Steam <${uniqueName('card')}>`;
    const lowStock = async (address: string) =>
      (await waitForEmail(address, 20_000)).filter((m) => m.subject.includes(productName));

    const [event] = await publishEvents('stock.low', {
      key: 'c-steam',
      data: { productId: 'c-steam', productName, available: 3, threshold: 5 },
    });
    for (const address of admins) {
      const mails = await eventually(async () => {
        const found = await lowStock(address);
        return found.length ? found : undefined;
      });
      expect(mails).toHaveLength(1);
      const mail = mails[0]!;
      expect(mail.subject).toBe(`Low stock: ${productName}, 3 codes left`);
      expect(mail.text).toContain(`${productName} has 3 codes left in stock; its low-stock alert is at 5.`);
      expect(mail.text).toContain(`Add codes on the Create page: ${auth.config.PUBLIC_URL}/admin/create`);
      expect(mail.html).toContain(`<a href="${auth.config.PUBLIC_URL}/admin/create">`);
      expect(mail.html).not.toContain('<card');
    }

    // Redelivered after a crash before the event was remembered: no second e-mail.
    await applied(event!);
    await auth.db
      .collection('processed_events')
      .deleteOne({ _id: `${auth.config.KAFKA_GROUP}:${event!.id}` as never });
    await republishEvents('stock.low', event!);
    await applied(event!);
    await new Promise((r) => setTimeout(r, 1500));
    for (const address of admins) expect(await lowStock(address)).toHaveLength(1);
  });
});

describe("the admins' digest", () => {
  it('collects the new top-ups and orders into one e-mail per admin, and sends nothing when nothing is new', async () => {
    const admin = await auth.adminToken();
    const second = `${uniqueName('admin')}@raseed.test`;
    await auth
      .http()
      .post('/api/create-admin')
      .set(bearer(admin))
      .send({ username: uniqueName('admin'), email: second, password: PASSWORD, phone: '+961 70 000000' })
      .expect(201);
    const customer = await auth.newCustomer();
    const admins = [auth.adminEmail, second];
    const before = await Promise.all(
      admins.map(async (a) => (await waitForEmail(a, 0).catch(() => [])).length),
    );

    // The digest waits while the events arrive, so they all go into its next run.
    await digests.pause();
    await eventually(async () => ((await digests.getActiveCount()) === 0 ? true : undefined));
    const submitted = (amount: number, method: string) => ({
      key: customer.id,
      data: { paymentId: newId(), userId: customer.id, method, amount, createdAt: new Date().toISOString() },
    });
    const topUps = await publishEvents(
      'payment.submitted',
      submitted(25_000_000, 'Whish-Money'),
      submitted(100_000_000, 'Binance'),
    );
    // Delivered from stock at once: nothing for an admin to do.
    const [instant] = await publishEvents('order.placed', {
      key: customer.id,
      data: {
        orderId: newId(),
        userId: customer.id,
        productId: newId(),
        productName: 'iTunes 25$',
        quantity: 1,
        total: 25_000_000,
        placedAt: new Date().toISOString(),
        fromStock: true,
      },
    });
    const [order] = await publishEvents('order.placed', {
      key: customer.id,
      data: {
        orderId: newId(),
        userId: customer.id,
        productId: newId(),
        productName: 'Steam <b>10$</b>',
        quantity: 2,
        total: 20_000_000,
        placedAt: new Date().toISOString(),
      },
    });
    const disputedOrder = newId();
    const [disputed] = await publishEvents('order.disputed', {
      key: disputedOrder,
      data: { orderId: disputedOrder, kind: 'completed-after-refund', supplierOrderId: '9001' },
    });
    const stuckOrder = newId();
    const [stuck] = await publishEvents('order.stuck', {
      key: customer.id,
      data: {
        orderId: stuckOrder,
        userId: customer.id,
        productName: 'PUBG 660 UC',
        total: 9_500_000,
        placedAt: new Date(Date.now() - 7 * 3600_000).toISOString(),
      },
    });
    const told = [...topUps, order!, disputed!, stuck!];
    const items = auth.db.collection('digest_items');
    // Each item is its event's insert (no processed marker); the instant order came first on
    // the customer's partition, so it was handled by the time the next order's item is there.
    for (const event of told)
      await eventually(async () =>
        (await items.countDocuments({ _id: event.id as never })) ? true : undefined,
      );
    // A redelivered event is one item still.
    await republishEvents('payment.submitted', topUps[0]!);
    await caughtUp(auth.config.KAFKA_GROUP ?? 'auth', 'payment.submitted');
    expect(await items.countDocuments({ userId: customer.id })).toBe(4);
    expect(await items.countDocuments({ _id: instant!.id as never })).toBe(0);
    expect(await items.countDocuments({ ref: disputedOrder })).toBe(1);
    await digests.resume();

    for (const [i, address] of admins.entries()) {
      const mails = (await waitForEmail(address, 20_000, before[i])).slice(before[i]);
      const digest = mails.filter((m) => m.subject.startsWith('Waiting for you'));
      expect(digest).toHaveLength(1);
      const mail = digest[0]!;
      expect(mail.subject).toBe(
        'Waiting for you: 2 new top-ups, 1 new order, 1 new disputed order and 1 new stuck order',
      );
      expect(mail.text).not.toContain('iTunes 25$');
      expect(mail.text).toContain('Disputed orders (1)');
      expect(mail.text).toContain(
        `- Order #${disputedOrder.slice(-8)}: the supplier completed it after it was refunded`,
      );
      expect(mail.text).toContain('Orders stuck at the supplier (1)');
      expect(mail.text).toContain(
        `- Order #${stuckOrder.slice(-8)}: PUBG 660 UC, 9.50$, from ${customer.username}`,
      );
      expect(mail.text).toContain(`${auth.config.PUBLIC_URL}/admin/disputed-orders`);
      expect(mail.text).toContain('Top-ups waiting (2)');
      expect(mail.text).toContain(`- 25.00$ by Whish-Money from ${customer.username} (${customer.email})`);
      expect(mail.text).toContain(`- 100.00$ by Binance from ${customer.username} (${customer.email})`);
      expect(mail.text).toContain(`- Steam <b>10$</b> × 2, 20.00$, from ${customer.username}`);
      expect(mail.text).toContain(`${auth.config.PUBLIC_URL}/admin/active-payments`);
      expect(mail.html).toContain('Steam &#60;b&#62;10$&#60;/b&#62; × 2');
      expect(mail.html).not.toContain('<b>');
    }
    await eventually(async () =>
      (await items.countDocuments({ userId: customer.id, sent: false })) === 0 ? true : undefined,
    );
    const claims = await auth.db
      .collection('digest_claims')
      .find({ _id: { $in: told.map((e) => e.id) as never[] } })
      .toArray();
    expect(claims).toHaveLength(told.length);
    expect(new Set(claims.map((c) => c.digestId)).size).toBe(1);

    // Several runs later, nothing new: no second digest.
    await new Promise((r) => setTimeout(r, 3500));
    for (const [i, address] of admins.entries()) {
      const mails = (await waitForEmail(address, 0, before[i])).slice(before[i]);
      expect(mails.filter((m) => m.subject.startsWith('Waiting for you'))).toHaveLength(1);
    }
  });

  it('sends a digest its run was cut off from, once, with what it claimed', async () => {
    const admins = await auth.db.collection('users').find({ role: 'admin' }).toArray();
    const before = await Promise.all(
      admins.map(async (a) => (await waitForEmail(a.email as string, 0).catch(() => [])).length),
    );
    const customer = await auth.newCustomer();
    await digests.pause();
    await eventually(async () => ((await digests.getActiveCount()) === 0 ? true : undefined));
    // A run claimed two items two minutes ago, then its process died before queueing the e-mails.
    const digestId = newId();
    const claimedAt = new Date(Date.now() - 120_000);
    const items = ['Binance', 'Whish-Money'].map((what, i) => ({
      _id: `cut-off-${digestId}-${i}`,
      kind: 'top-up',
      ref: newId(),
      userId: customer.id,
      what,
      amount: (i + 1) * 5_000_000,
      at: claimedAt,
      sent: false,
    }));
    await auth.db.collection('digest_items').insertMany(items as never[]);
    await auth.db
      .collection('digest_claims')
      .insertMany(items.map((item) => ({ _id: item._id, digestId, at: claimedAt })) as never[]);
    await digests.resume();

    const digestOf = async (address: string, after: number) =>
      (await waitForEmail(address, 20_000, after))
        .slice(after)
        .filter((m) => m.subject.startsWith('Waiting for you'));
    for (const [i, admin] of admins.entries()) {
      const [mail, ...more] = await digestOf(admin.email as string, before[i]!);
      expect(more).toEqual([]);
      expect(mail!.subject).toBe('Waiting for you: 2 new top-ups');
      expect(mail!.text).toContain(`- 5.00$ by Binance from ${customer.username}`);
      expect(mail!.text).toContain(`- 10.00$ by Whish-Money from ${customer.username}`);
      expect(await emails.getJob(`digest-${digestId}-${String(admin._id)}`)).toBeDefined();
    }

    // Cut off again, after the e-mails were queued but before the items were marked: the
    // next run queues the same e-mails under the same ids, and nobody gets a second one.
    await eventually(async () =>
      (await auth.db.collection('digest_items').countDocuments({ userId: customer.id, sent: false })) === 0
        ? true
        : undefined,
    );
    await auth.db.collection('digest_items').updateMany({ userId: customer.id }, { $set: { sent: false } });
    await eventually(async () =>
      (await auth.db.collection('digest_items').countDocuments({ userId: customer.id, sent: false })) === 0
        ? true
        : undefined,
    );
    await new Promise((r) => setTimeout(r, 1500));
    for (const [i, admin] of admins.entries())
      expect(await digestOf(admin.email as string, before[i]!)).toHaveLength(1);
  });
});
