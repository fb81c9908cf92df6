import { createLogger, redisConnection } from '@raseed/kit';
import {
  eventually,
  TEST_TOPIC_PREFIX,
  uniqueName,
  waitForEmail,
  type CaughtEmail,
} from '@raseed/kit/testing';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import supertest from 'supertest';
import { createGateway, liveStreams } from '../../../gateway/src/app';
import { loadGatewayConfig } from '../../../gateway/src/config';
import { startLiveFeed } from '../../../gateway/src/live';
import { PASSWORD, startTestAuth } from '../../../services/auth/test/support';
import { IMAGE, startTestCatalog } from '../../../services/catalog/test/support';
import { startTestOrders } from '../../../services/orders/test/support';
import { freshReceipt, startMoneyServices } from '../../../services/payments/test/support';

export { PASSWORD };

export const FRONTEND_DIR = path.resolve(__dirname, '..', '..', 'dist');

/** For supertest's expect(): a failure names the call and shows the store's answer. */
const answers = (status: number, what: string) => (res: supertest.Response) => {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${res.text}`);
};

interface Stoppable {
  stop(): Promise<unknown>;
}

export interface ProductDraft {
  name?: string;
  /** The price in dollars, as the admin types it. */
  dollars?: string;
  /** What the customer fills in when ordering, comma-separated. */
  params?: string;
  category?: string;
}

export interface StoreOptions {
  /** What the gateway serves as the storefront (the built one unless told; the security suite needs no build). */
  frontendDir?: string;
  /** Gateway settings over the store's own (e.g. TRUST_PROXY, the limits). */
  gateway?: Record<string, string>;
}

/**
 * The whole store for one test file, in-process against the real infrastructure: auth,
 * wallet, payments, catalog (synced from a supplier simulator), orders, and the gateway
 * serving the built storefront on a loopback port. Every service has its own database and
 * Kafka topics; stop() stops them all and drops the databases.
 */
export async function startStore(options: StoreOptions = {}) {
  const frontendDir = options.frontendDir ?? FRONTEND_DIR;
  if (!fs.existsSync(path.join(frontendDir, 'index.html'))) {
    throw new Error('the storefront is not built: run `npm run build -w frontend` first');
  }
  const running: Stoppable[] = [];
  const started = <T extends Stoppable>(service: T): T => {
    running.push(service);
    return service;
  };
  // All at once: each Kafka consumer takes seconds to leave its group, and by now nothing calls them.
  async function stop(): Promise<void> {
    const stopped = await Promise.allSettled(running.splice(0).map((service) => service.stop()));
    const failed = stopped.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  }

  try {
    // The port is taken first, so the links in auth's e-mails lead to this store.
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    started({
      stop: () => {
        // The browser's keep-alive connections would hold close() open.
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      },
    });

    const starting = [
      startTestAuth({ PUBLIC_URL: url }).then(started),
      startMoneyServices().then(started),
      startTestCatalog().then(started),
    ] as const;
    // Every start settles before a failure is thrown, so stop() finds each service that came up.
    await Promise.allSettled(starting);
    const [auth, money, catalog] = await Promise.all(starting);
    // One wallet and one catalog for the whole store; this also syncs the simulator's products.
    const orders = started(await startTestOrders({}, { wallet: money.wallet, catalog }));

    const redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    started({ stop: () => redis.quit() });
    const config = loadGatewayConfig({
      NODE_ENV: 'test',
      KAFKA_TOPIC_PREFIX: TEST_TOPIC_PREFIX,
      AUTH_URL: auth.service.url,
      WALLET_URL: money.wallet.service.url,
      PAYMENTS_URL: money.service.url,
      CATALOG_URL: catalog.service.url,
      ORDERS_URL: orders.url(),
      FRONTEND_DIR: frontendDir,
      // Product pictures come from this store's own supplier simulator.
      IMAGE_ORIGINS: new URL(catalog.sim.url).origin,
      // A walk signs in and up more often than a person would; the limits have tests of their own.
      AUTH_RATE_LIMIT: '10000',
      ...options.gateway,
    });
    const gatewayLogger = createLogger('gateway', 'silent');
    // The pages' live streams, fed from this store's events.
    const live = liveStreams(config, redis, gatewayLogger);
    const feed = startLiveFeed(config, live, gatewayLogger);
    started({
      stop: () => {
        live.close();
        return feed.stop();
      },
    });
    await feed.started;
    server.on('request', createGateway(config, redis, gatewayLogger, undefined, live));

    // As the storefront calls the API: every call marked, through the gateway.
    const api = () => supertest.agent(url).set('X-Requested-With', 'XMLHttpRequest');
    /** Answers the session token, as the storefront receives it. */
    async function signIn(email: string, password = PASSWORD): Promise<string> {
      const res = await api()
        .post('/api/signin')
        .send({ email, password })
        .expect(answers(200, `signing in as ${email}`));
      return res.body.token as string;
    }
    const admin = await signIn(auth.adminEmail);
    const asAdmin = () => api().set('Authorization', `Bearer ${admin}`);

    async function userIdOf(email: string): Promise<string> {
      const user = await auth.db.collection('users').findOne({ email: email.toLowerCase() });
      if (!user) throw new Error(`no user has the e-mail ${email}`);
      return String(user._id);
    }

    /** Waits until the wallet has moved a payment's money. */
    async function credited(userId: string, paymentId: string): Promise<void> {
      await eventually(
        async () =>
          (await money.wallet.db
            .collection('entries')
            .findOne({ account: userId, key: `payment:${paymentId}` }))
            ? true
            : undefined,
        { what: `payment ${paymentId} in the wallet` },
      );
    }

    /** Waits until payments and the wallet have learnt of a user from user.registered. */
    async function known(userId: string): Promise<void> {
      await eventually(
        async () =>
          (await money.db.collection('users').countDocuments({ _id: userId as never })) &&
          (await money.wallet.db.collection('entries').countDocuments({ account: userId }))
            ? true
            : undefined,
        { what: `payments and the wallet to learn of user ${userId}` },
      );
    }

    return {
      url,
      adminEmail: auth.adminEmail,
      adminPassword: PASSWORD,
      /** The services themselves, for what the helpers below do not cover. */
      services: { auth, money, catalog, orders },
      /** The gateway's settings, as loaded. */
      gatewayConfig: config,
      api,
      signIn,
      userIdOf,

      /** A customer signed up through the API, known to payments and the wallet. */
      async newCustomer() {
        const customer = await auth.newCustomer();
        await known(customer.id);
        return { ...customer, password: PASSWORD };
      },

      /** An admin confirms the customer's newest waiting top-up, as on Waiting Payments; answers once the wallet holds it. */
      async confirmTopUp(email: string): Promise<string> {
        const userId = await userIdOf(email);
        const payment = await eventually(
          async () => {
            const res = await asAdmin()
              .get('/api/waiting-payments?limit=100')
              .expect(answers(200, 'Waiting Payments'));
            return (res.body.payments as { id: string; user_id: string }[]).find((p) => p.user_id === userId);
          },
          { what: `a waiting top-up by ${email}` },
        );
        await asAdmin()
          .put(`/api/payments/${payment.id}/update-status`)
          .send({ action: 'confirmed' })
          .expect(answers(200, `confirming top-up ${payment.id}`));
        await credited(userId, payment.id);
        return payment.id;
      },

      /** A top-up the customer sends with a receipt of its own, as the Add Credit page does. */
      async topUp(token: string, dollars: number, method = 'Binance'): Promise<void> {
        await api()
          .post('/api/payments')
          .set('Authorization', `Bearer ${token}`)
          .field('product_name', method)
          .field('amount', String(dollars))
          .attach('image', freshReceipt(), 'receipt.png')
          .expect(answers(201, `a top-up of ${dollars}`));
      },

      /** An admin's credit (type IN) to a user's wallet; answers once the wallet holds it. */
      async creditWallet(userId: string, dollars: number): Promise<void> {
        await known(userId);
        const res = await asAdmin()
          .post('/api/payments')
          .send({ user_id: userId, amount: dollars, type: 'IN' })
          .expect(answers(201, `crediting ${userId}`));
        await credited(userId, res.body.payment.id as string);
      },

      /** A created product, made by an admin through the store; answers its id and name. */
      async createProduct(draft: ProductDraft = {}): Promise<{ id: string; name: string }> {
        const name = draft.name ?? uniqueName('Gift card ');
        const res = await asAdmin()
          .post('/api/create/product')
          .field('productName', name)
          .field('price', draft.dollars ?? '5')
          .field('params', draft.params ?? 'Account e-mail')
          .field('category_name', draft.category ?? 'Steam')
          .attach('image', IMAGE)
          .expect(answers(201, `creating the product ${name}`));
        return { id: res.body.product.id as string, name };
      },

      /** An admin accepts or rejects an order of a created product; replay is what the customer reads. */
      async decideOrder(orderId: string, action: 'confirmed' | 'rejected', replay?: string) {
        const res = await asAdmin()
          .post('/api/orders/action')
          .send({ orderId, action, replay })
          .expect(answers(200, `deciding order ${orderId}`));
        return res.body as { success: boolean; message: string };
      },

      /** The newest e-mail to the address once more than `after` have reached the mail catcher. */
      async latestEmail(address: string, after = 0): Promise<CaughtEmail> {
        const emails = await waitForEmail(address, 20_000, after);
        return emails[emails.length - 1] as CaughtEmail;
      },

      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

export type Store = Awaited<ReturnType<typeof startStore>>;
