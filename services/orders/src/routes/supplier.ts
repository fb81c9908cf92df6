import {
  badRequest,
  adminSyncAnswer,
  HttpError,
  notFound,
  parseInput,
  SupplierError,
  z,
  type ApiRoutes,
} from '@raseed/kit';
import type { FulfilmentDeps } from '../domain/deps';
import { placeAtSupplier } from '../domain/fulfilment';
import type { SyncAnswer } from '../jobs/fulfilment';
import { ORDER_ID, texts } from '../domain/rules';

/** A supplier that is down or answers garbage is a 502 with its reason, not a crash. */
const unreachable = (reason: string) => new HttpError(502, `The supplier could not be reached (${reason}).`);
const fromSupplier = <T>(call: Promise<T>): Promise<T> =>
  call.catch((err: unknown) => {
    if (err instanceof SupplierError) throw unreachable(err.message);
    throw err;
  });

const replayApi = (replay: string | null) => (replay === null ? [] : [{ replay: [replay] }]);
const placeQuery = z.object({ orderId: z.string().regex(ORDER_ID, texts.orderMissing) });
const checkQuery = z.object({
  orderIds: z
    .string({ required_error: 'orderIds is required' })
    .trim()
    .regex(/^[\w-]{1,64}(,[\w-]{1,64}){0,99}$/, 'orderIds must be up to 100 order ids joined by commas'),
});

/**
 * The spec's supplier calls, kept for admins: they drive the same code as the jobs, and the
 * supplier's token never leaves the server. Statuses a browser sends are not trusted: the
 * sync asks the supplier itself.
 */
export function supplierRoutes(
  api: ApiRoutes,
  deps: FulfilmentDeps,
  /** Runs the status sync job now; undefined if it has not answered yet. */
  syncNow: () => Promise<SyncAnswer | undefined>,
): void {
  api.route(
    {
      method: 'post',
      path: '/external/neworder',
      summary: 'Places a paid supplier order at the supplier now (never twice) and answers its state there',
      access: 'admin',
      query: placeQuery,
    },
    async (req, res) => {
      const { orderId } = parseInput(placeQuery, req.query);
      const order = await fromSupplier(placeAtSupplier(deps, orderId));
      if (!order?.paid) throw notFound(texts.orderMissing);
      if (order.kind !== 'supplier') throw badRequest('This order is not for a supplier product.');
      res.json({
        status: order.externalId ? 'OK' : 'error',
        data: { order_id: order.externalId, status: order.status },
        replay_api: replayApi(order.replay),
      });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/external/Apiorders',
      summary: "The supplier's state of its orders (its order ids, comma-joined, at most 100)",
      access: 'admin',
      query: checkQuery,
    },
    async (req, res) => {
      const { orderIds } = parseInput(checkQuery, req.query);
      const found = await fromSupplier(deps.supplier.orders(orderIds.split(',')));
      res.json({
        data: found.map((o) => ({ order_id: o.orderId, status: o.status, replay_api: replayApi(o.replay) })),
      });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/orders/api-sync',
      summary:
        'Runs the supplier status sync now (in its job) and answers its figures, or 202 if it is still running (statuses sent in the body are not trusted)',
      access: 'admin',
      answer: z.object({
        success: z.boolean(),
        queued: z.boolean().optional(),
        checked: z.number().optional(),
        confirmed: z.number().optional(),
        rejected: z.number().optional(),
        disputed: z.number().optional(),
      }),
    },
    async (_req, res) => {
      const { status, body } = await adminSyncAnswer(syncNow(), unreachable);
      res.status(status).json(body);
    },
  );
}
