import { parseInput, z, type ApiRoutes } from '@raseed/kit';
import type { DisputeModels } from '../data/disputes';
import type { OrderModels } from '../data/orders';
import { ordersAfter } from '../data/reconcile';
import { ORDER_ID } from '../domain/rules';

const pageSchema = z.object({
  after: z.string().regex(ORDER_ID, 'Invalid order id').optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});

/** What the store's reconcile reads of orders (ARCHITECTURE rule 1: through the owner's API). */
export function internalRoutes(api: ApiRoutes, models: OrderModels, disputes: DisputeModels): void {
  api.route(
    {
      method: 'get',
      path: '/internal/orders/reconcile',
      summary: 'Orders in id order with their fate and decision, for reconcile',
      access: 'internal',
      query: pageSchema,
    },
    async (req, res) => {
      const { after, limit } = parseInput(pageSchema, req.query);
      const orders = await ordersAfter(models, disputes, after ?? null, limit);
      res.json({ orders, next: orders.length === limit ? orders[orders.length - 1]!.id : null });
    },
  );
}
