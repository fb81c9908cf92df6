import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import {
  createQueue,
  liveSessionFrom,
  QUEUE_NAMES,
  SessionEnds,
  type Logger,
  type SessionKeys,
} from '@raseed/kit';
import cookieParser from 'cookie-parser';
import { Router, type Express, type RequestHandler } from 'express';
import type IORedis from 'ioredis';

/** Where operators find the board. */
export const BOARD_PATH = '/admin/queues';

/** Every queue of the store, with the words the board shows for it. */
const BOARD_QUEUES = [
  {
    name: QUEUE_NAMES.email,
    displayName: 'E-mail delivery',
    description: 'auth: password-reset, contact, top-up and order e-mails',
  },
  {
    name: QUEUE_NAMES.catalogueSync,
    displayName: 'Supplier catalogue sync',
    description: 'catalog: the supplier product list, on a schedule and on demand',
  },
  {
    name: QUEUE_NAMES.orderPlacement,
    displayName: 'Supplier order placement',
    description: 'orders: one job per paid supplier order, retried with backoff',
  },
  {
    name: QUEUE_NAMES.orderStatus,
    displayName: 'Supplier order status sync',
    description: 'orders: asks the supplier about the orders it took',
  },
  {
    name: QUEUE_NAMES.reconcile,
    displayName: 'Nightly reconcile',
    description: "wallet: the ledger against payments and orders; each run's result shows its mismatches",
  },
  {
    name: QUEUE_NAMES.adminDigest,
    displayName: "Admins' digest",
    description: 'auth: new waiting top-ups and orders, e-mailed to the admins at most every few minutes',
  },
];

const FORBIDDEN_PAGE = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Forbidden · Raseed</title>
<h1>Admins only</h1>
<p>The queue board is for Raseed's admins. <a href="/">Back to the store</a></p>
</html>
`;

/**
 * The session from the `token` cookie or a Bearer header, checked here (no service answers
 * this path). A browser page visit without a session goes to the sign-in page; a signed-in
 * customer gets a 403 page. The board's own API calls (JSON) get 401 or 403 JSON.
 */
function adminsOnly(jwtSecret: SessionKeys, ends: SessionEnds): RequestHandler {
  return async (req, res, next) => {
    const user = await liveSessionFrom(req, jwtSecret, ends);
    if (user?.role === 'admin') {
      next();
      return;
    }
    const pageVisit = ['GET', 'HEAD'].includes(req.method) && req.accepts(['html', 'json']) === 'html';
    if (!user && pageVisit) res.redirect('/signin');
    else if (!user) res.status(401).json({ error: 'Please sign in first.' });
    else if (pageVisit) res.status(403).type('html').send(FORBIDDEN_PAGE);
    else res.status(403).json({ error: 'You do not have permission to do this.' });
  };
}

/**
 * The board's buttons (retry, clean, …) cannot send X-Requested-With, so the gateway's check
 * is replaced here: a state-changing call the browser marks as coming from another site is
 * refused (the SameSite session cookie already keeps most of them from being signed in).
 */
const sameOriginChanges: RequestHandler = (req, res, next) => {
  const site = req.headers['sec-fetch-site'];
  if (!['GET', 'HEAD'].includes(req.method) && site !== undefined && site !== 'same-origin') {
    res.status(403).json({ error: 'The queue board only accepts changes from its own pages.' });
    return;
  }
  next();
};

/**
 * Bull Board at /admin/queues, for admins only: the store's queues, opened on the gateway's
 * Redis connection under the services' BullMQ prefix.
 */
export function queueBoard(
  redis: IORedis,
  options: { jwtSecret: SessionKeys; queuePrefix: string; sessionTtlSeconds: number },
  logger: Logger,
): Router {
  const ends = new SessionEnds(redis, options.sessionTtlSeconds, logger);
  const serverAdapter = new ExpressAdapter().setBasePath(BOARD_PATH);
  const queues = BOARD_QUEUES.map(({ name, ...labels }) => {
    return new BullMQAdapter(createQueue(name, redis, logger, options.queuePrefix), labels);
  });
  createBullBoard({
    queues,
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Raseed queues', miscLinks: [{ text: 'Store', url: '/' }] } },
  });
  // Bull Board's own Express app, which would name itself in X-Powered-By like any new app.
  const board = (serverAdapter.getRouter() as Express).disable('x-powered-by');
  const router = Router();
  router.use(cookieParser(), adminsOnly(options.jwtSecret, ends), sameOriginChanges, board);
  // Nothing else lives under the board's path: not the storefront's index page either.
  router.use((_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });
  return router;
}
