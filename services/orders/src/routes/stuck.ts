import {
  currentUser,
  dateRangeSchema,
  idempotencyKey,
  pageAnswer,
  pageSchema,
  parseInput,
  z,
  type ApiRoutes,
} from '@raseed/kit';
import { ageText, orderIdParam, stuckDecisionSchema, texts } from '../domain/rules';
import { decideStuck, stuckOrders, type StuckDeps } from '../domain/stuck';
import { orderView } from './orders';

const listSchema = pageSchema.merge(dateRangeSchema);

/** Stuck supplier orders (issue 15, path 4): paid, and waiting at the supplier for too long. */
export function stuckRoutes(api: ApiRoutes, deps: StuckDeps): void {
  const age = ageText(deps.stuckMs);

  api.route(
    {
      method: 'get',
      path: '/api/orders/stuck',
      summary: `Paid supplier orders still waiting after ${age} (ORDER_STUCK_HOURS): oldest first, 10 a page, placed within the date filter`,
      access: 'admin',
      query: listSchema,
      answer: z.object({
        success: z.boolean(),
        orders: z.array(z.object({ id: z.string(), status: z.string() }).passthrough()),
        totalPages: z.number(),
      }),
    },
    async (req, res) => {
      const query = parseInput(listSchema, req.query, { success: false });
      const [orders, total] = await stuckOrders(deps, query);
      res.json({ success: true, orders: orders.map(orderView), ...pageAnswer(query, total) });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/orders/stuck/{orderId}',
      summary:
        "An admin accepts (with the reply the customer reads) or rejects (refunds) a stuck order once. The supplier is asked one last time first: a final answer from it wins and is answered 409 with what it said; a supplier that cannot be reached does not hold the decision up. An Idempotency-Key makes the same admin's retry answer the first outcome",
      access: 'admin',
      body: stuckDecisionSchema,
      answer: z.object({ success: z.boolean(), message: z.string() }),
    },
    async (req, res) => {
      const failed = { success: false };
      const orderId = parseInput(orderIdParam, req.params.orderId, failed);
      const input = parseInput(stuckDecisionSchema, req.body, failed);
      const key = idempotencyKey(req, failed);
      const order = await decideStuck(deps, currentUser(req), { orderId, ...input }, key);
      res.json({
        success: true,
        message: input.action === 'confirmed' ? texts.accepted : texts.rejected,
        order: orderView(order),
      });
    },
  );
}
