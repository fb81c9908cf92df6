import {
  currentUser,
  dateFilter,
  dateRangeSchema,
  idempotencyKey,
  pageAnswer,
  pageSchema,
  parseInput,
  z,
  type ApiRoutes,
} from '@raseed/kit';
import { disputeView, resolveDispute } from '../domain/disputes';
import type { FulfilmentDeps } from '../domain/deps';
import { disputeTexts, orderIdParam, resolutionSchema } from '../domain/rules';
import { orderView } from './orders';

const disputedAnswer = z
  .object({
    id: z.string(),
    status: z.string(),
    disputed: z.literal(true),
    dispute: z.object({
      kind: z.enum(['completed-after-refund', 'rejected-after-ok']),
      supplier_reply: z.string().nullable(),
      supplier_order_id: z.string(),
      actions: z.array(z.string()),
    }),
  })
  .passthrough();

const listSchema = pageSchema.merge(dateRangeSchema);

/** Disputed supplier orders (issue 15, path 3): the supplier contradicted a decision we took. */
export function disputeRoutes(api: ApiRoutes, deps: FulfilmentDeps): void {
  api.route(
    {
      method: 'get',
      path: '/api/orders/disputed',
      summary:
        'Supplier orders whose supplier contradicted our decision (completed after we refunded, or rejected after its OK), not resolved yet: newest first, 10 a page, disputed within the date filter',
      access: 'admin',
      query: listSchema,
      answer: z.object({ success: z.boolean(), orders: z.array(disputedAnswer), totalPages: z.number() }),
    },
    async (req, res) => {
      const query = parseInput(listSchema, req.query, { success: false });
      const [disputes, total] = await deps.disputes.unresolved(
        dateFilter('at', query),
        query.page,
        query.limit,
      );
      const orders = new Map(
        (await deps.orders.byIds(disputes.map((d) => d._id))).map((o) => [o._id.toString(), o]),
      );
      res.json({
        success: true,
        orders: disputes.flatMap((dispute) => {
          const order = orders.get(dispute._id);
          return order ? [{ ...orderView(order), disputed: true, dispute: disputeView(dispute) }] : [];
        }),
        ...pageAnswer(query, total),
      });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/orders/disputed/{orderId}/resolve',
      summary:
        "Resolves a dispute once: 'deliver' (a completion after the refund: the customer is debited again if the balance allows, 422 with the wallet's text otherwise, and gets the supplier's code) or 'write-off'; 'refund' or 'write-off' for a reject after the OK. An Idempotency-Key makes the same admin's retry answer the first outcome",
      access: 'admin',
      body: resolutionSchema,
      answer: z.object({ success: z.boolean(), message: z.string() }),
    },
    async (req, res) => {
      const failed = { success: false };
      const orderId = parseInput(orderIdParam, req.params.orderId, failed);
      const { action } = parseInput(resolutionSchema, req.body, failed);
      const key = idempotencyKey(req, failed);
      const { resolution, order } = await resolveDispute(deps, currentUser(req), { orderId, action }, key);
      res.json({ success: true, message: disputeTexts.resolved[resolution.action], order: orderView(order) });
    },
  );
}
