import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { SimProduct } from './catalogue';
import { colourOf, solidPng } from './images';
import { DEFAULT_OUTCOME, isOutcome, parseScenario, SimRefusal, type Scenario } from './scenarios';
import { replayOf, statusOf, type SimOrder, type SimSupplier } from './supplier';

const CHECK_LIMIT = 100;
const IMAGE = /^([a-z0-9-]{1,64})\.png$/;

const scenarioBody = z.object({ scenario: z.string().min(1) });
const faultBody = z.object({ scenario: z.string().min(1).nullable() });
const productChange = z.object({ price: z.number().finite().optional(), available: z.boolean().optional() });
const catalogueSize = z.object({ size: z.number().int().min(1).max(100_000) });

const replayApi = (reply: string | null) => (reply === null ? [] : [{ replay: [reply] }]);

function productAnswer(p: SimProduct, origin: string) {
  return {
    id: p.id,
    name: p.name,
    price: p.priceMicros / 1_000_000,
    category_name: p.categoryName,
    category_img: `${origin}/images/${p.image}`,
    params: p.params,
    qty_values: p.qtyValues,
    available: p.available,
  };
}

function checkedAnswer(order: SimOrder) {
  return {
    order_id: order.orderId,
    order_uuid: order.uuid,
    status: statusOf(order),
    replay_api: replayApi(replayOf(order)),
  };
}

const origin = (req: Request) => `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`;

/** The scenario a caller asked for on this one call (x-sim-scenario). */
function requested(req: Request): Scenario | undefined {
  const header = req.get('x-sim-scenario');
  return header ? parseScenario(header) : undefined;
}

/** Answers the way a fault asks; false when the scenario spoils nothing. A timeout never answers. */
function spoiled(res: Response, scenario: Scenario | null | undefined): boolean {
  switch (scenario?.kind) {
    case 'timeout':
      return true;
    case 'error500':
      res.status(500).type('text/plain').send('Internal Server Error');
      return true;
    case 'garbage':
      if (scenario.html)
        res.type('html').send('<html><body><h1>Service Temporarily Unavailable</h1></body></html>');
      else res.json({ foo: 1 });
      return true;
    default:
      return false;
  }
}

function logRequests(logger: Logger): express.RequestHandler {
  return (req, res, next) => {
    const started = Date.now();
    res.once('close', () => {
      logger.info(
        {
          method: req.method,
          url: req.originalUrl,
          status: res.headersSent ? res.statusCode : 'no answer',
          ms: Date.now() - started,
        },
        'request',
      );
    });
    next();
  };
}

/** Every failure is answered in the supplier's shape, { status: 'ERROR', message }. */
function answerErrors(logger: Logger): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    const status = (err as { status?: unknown }).status;
    if (err instanceof SimRefusal) {
      res.status(err.status).json({ status: 'ERROR', message: err.message });
    } else if (err instanceof z.ZodError) {
      const issue = err.issues[0];
      res
        .status(400)
        .json({ status: 'ERROR', message: `${issue?.path.join('.') || 'body'}: ${issue?.message}` });
    } else if (typeof status === 'number' && status >= 400 && status < 500) {
      res.status(status).json({ status: 'ERROR', message: (err as Error).message });
    } else {
      logger.error({ err }, 'request failed');
      res.status(500).json({ status: 'ERROR', message: 'The simulator failed' });
    }
  };
}

/** The supplier's API (/client/api), its images, and the control API tests and demos steer it with (/sim). */
export function simApp(supplier: SimSupplier, token: string, logger: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(logRequests(logger));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/images/:file', (req, res) => {
    const name = IMAGE.exec(req.params.file)?.[1];
    if (!name) throw new SimRefusal(404, 'Image not found');
    res
      .type('png')
      .set('cache-control', 'public, max-age=86400')
      .send(solidPng(colourOf(name)));
  });

  app.use((req, _res, next) => {
    if (req.get('api-token') !== token) throw new SimRefusal(401, 'Invalid token');
    next();
  });
  app.use(express.json({ limit: '10kb' }));

  app.get('/client/api/products', (req, res) => {
    if (spoiled(res, requested(req) ?? supplier.catalogueFault)) return;
    const at = origin(req);
    res.json(supplier.products.map((p) => productAnswer(p, at)));
  });

  app.post('/client/api/newOrder/:productId/params', (req, res) => {
    const { productId } = req.params;
    const asked = requested(req);
    const set = supplier.scenarioFor(productId);
    const scenario = asked ?? set;
    if (scenario?.kind === 'error500') return void spoiled(res, scenario);
    const { qty, order_uuid, ...fields } = req.query;
    const order = supplier.place(
      {
        productId,
        quantity: typeof qty === 'string' ? qty : undefined,
        uuid: typeof order_uuid === 'string' ? order_uuid : undefined,
        fields,
      },
      [asked, set].find(isOutcome) ?? DEFAULT_OUTCOME,
    );
    // A late order's call is held open like a timeout: the caller cannot tell it was recorded.
    if (order.outcome.kind === 'late' || spoiled(res, scenario)) return;
    res.json({
      status: 'OK',
      data: { order_id: order.orderId, status: statusOf(order), price: order.priceMicros / 1_000_000 },
      replay_api: replayApi(replayOf(order)),
    });
  });

  app.get('/client/api/check', (req, res) => {
    if (spoiled(res, requested(req) ?? supplier.checkFault)) return;
    const list = typeof req.query.orders === 'string' ? req.query.orders : '';
    const ids = list
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean);
    if (ids.length > CHECK_LIMIT) throw new SimRefusal(400, `At most ${CHECK_LIMIT} orders per call`);
    const found = supplier.check(ids, req.query.uuid === '1');
    res.json({ status: 'OK', data: found.map(checkedAnswer) });
  });

  app.put('/sim/scenarios/:productId', (req, res) => {
    supplier.setScenario(req.params.productId, scenarioBody.parse(req.body).scenario);
    res.json({ status: 'OK' });
  });
  app.delete('/sim/scenarios', (_req, res) => {
    supplier.clearScenarios();
    res.json({ status: 'OK' });
  });
  app.put('/sim/catalogue-scenario', (req, res) => {
    supplier.setCatalogueScenario(faultBody.parse(req.body).scenario);
    res.json({ status: 'OK' });
  });
  app.put('/sim/check-scenario', (req, res) => {
    supplier.setCheckScenario(faultBody.parse(req.body).scenario);
    res.json({ status: 'OK' });
  });
  app.put('/sim/products/:id', (req, res) => {
    const product = supplier.updateProduct(req.params.id, productChange.parse(req.body));
    res.json({ status: 'OK', data: productAnswer(product, origin(req)) });
  });
  app.post('/sim/catalogue', (req, res) => {
    const { size } = catalogueSize.parse(req.body);
    supplier.useCatalogue(size);
    res.json({ status: 'OK', data: { size } });
  });
  app.post('/sim/reset', (_req, res) => {
    supplier.reset();
    res.json({ status: 'OK', data: { size: supplier.products.length } });
  });
  app.get('/sim/orders', (_req, res) => {
    res.json({
      status: 'OK',
      data: supplier.placed.map((order) => ({
        ...checkedAnswer(order),
        product_id: order.productId,
        qty: order.quantity,
        params: order.params,
        price: order.priceMicros / 1_000_000,
        checks: order.checks,
        placed_at: order.placedAt.toISOString(),
      })),
    });
  });

  app.use(() => {
    throw new SimRefusal(404, 'Not found');
  });
  app.use(answerErrors(logger));
  return app;
}
