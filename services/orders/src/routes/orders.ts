import {
  assertSelfOrAdmin,
  currentUser,
  dateFilter,
  idempotencyKey,
  pageAnswer,
  parseInput,
  toDollars,
  z,
  type ApiRoutes,
} from '@raseed/kit';
import type { FilterQuery } from 'mongoose';
import type { Order } from '../data/orders';
import { adminDecision, placeOrder, type OrderDeps } from '../domain/orders';
import { decisionSchema, listSchema, myOrdersSchema, orderDraftSchema, texts } from '../domain/rules';

/** An order as the spec's screens read it (§3), the total in dollars. */
export const orderView = (o: Order) => ({
  id: o._id.toString(),
  user_id: o.userId,
  username: o.username,
  product_id: o.productId,
  product_name: o.productName,
  quantity: o.quantity,
  total_price: toDollars(o.total),
  status: o.status,
  params: o.params,
  replay_api: o.replay,
  /** Delivered from stock: its owner reveals the codes (GET /api/orders/codes/{id}). */
  from_stock: o.stocked ?? false,
  order_id: o.externalId,
  reason: o.reason,
  created_at: o.createdAt,
});

const orderAnswer = z.object({ id: z.string(), status: z.string(), total_price: z.number() }).passthrough();
const listAnswer = z.object({ success: z.boolean(), orders: z.array(orderAnswer), totalPages: z.number() });

export function orderRoutes(api: ApiRoutes, deps: OrderDeps): void {
  const { orders } = deps;
  /** One page of the orders the filter matches, newest first, as the spec's lists read it. */
  const listed = async (filter: FilterQuery<Order>, query: { page: number; limit: number }) => {
    const [items, total] = await orders.list(filter, query.page, query.limit);
    return { success: true, orders: items.map(orderView), ...pageAnswer(query, total) };
  };

  api.route(
    {
      method: 'post',
      path: '/api/orders',
      summary:
        "Places an order paid from the wallet: priced on the server (a price, total, username or user id sent is ignored); an Idempotency-Key header makes a retry answer the first request's outcome",
      access: 'user',
      body: orderDraftSchema,
      status: 201,
      answer: z.object({
        orderStatus: z.boolean(),
        message: z.string(),
        orderId: z.string(),
        /** The balance after the debit, in dollars (absent when a repeated key answers). */
        balance: z.number().optional(),
      }),
    },
    async (req, res) => {
      const failed = { orderStatus: false };
      const draft = parseInput(orderDraftSchema, req.body, failed);
      const key = idempotencyKey(req, failed);
      const placed = await placeOrder(deps, currentUser(req), draft, key);
      res.status(placed.status).json(placed.body);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/orders/myorders',
      summary: "One's own orders, newest first, 10 a page, within the date filter",
      access: 'user',
      body: myOrdersSchema,
      answer: listAnswer,
    },
    async (req, res) => {
      const query = parseInput(myOrdersSchema, req.body, { success: false });
      const userId = query.userId ?? currentUser(req).id;
      assertSelfOrAdmin(req, userId, texts.myOrdersOnly);
      const filter = {
        userId,
        ...(query.status && { status: query.status }),
        ...dateFilter('createdAt', query),
      };
      res.json(await listed(filter, query));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/orders',
      summary: 'Orders history for admins (status=waiting for Active Orders): newest first, 10 a page',
      access: 'admin',
      query: listSchema,
      answer: listAnswer,
    },
    async (req, res) => {
      const query = parseInput(listSchema, req.query, { success: false });
      const filter = { ...(query.status && { status: query.status }), ...dateFilter('createdAt', query) };
      res.json(await listed(filter, query));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/orders/stats',
      summary: "The admin home's order figures: all orders and those waiting",
      access: 'admin',
      answer: z.object({ totalOrders: z.number(), waitingOrders: z.number() }),
    },
    async (_req, res) => {
      const [totalOrders, waitingOrders] = await Promise.all([
        orders.count(),
        orders.count({ status: 'waiting' }),
      ]);
      res.json({ totalOrders, waitingOrders });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/orders/action',
      summary:
        "An admin accepts or rejects a created product's order once (a rejection refunds it); replay is the text the customer reads",
      access: 'admin',
      body: decisionSchema,
      answer: z.object({ success: z.boolean(), message: z.string() }),
    },
    async (req, res) => {
      const input = parseInput(decisionSchema, req.body, { success: false });
      const order = await adminDecision(deps, currentUser(req), input);
      res.json({
        success: true,
        message: input.action === 'confirmed' ? texts.accepted : texts.rejected,
        order: orderView(order),
      });
    },
  );
}
