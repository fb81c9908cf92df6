import { notFound, parseInput, z, type ApiRoutes } from '@raseed/kit';
import { checkCodes } from '../data/codes-check';
import type { CodeVault } from '../domain/codes';
import type { OrderDeps } from '../domain/orders';
import { ORDER_ID, texts } from '../domain/rules';

const orderParam = z.object({ orderId: z.string().regex(ORDER_ID, texts.orderMissing) });
const codeContent = z.object({
  code: z.string(),
  serial: z.string().optional(),
  pin: z.string().optional(),
  expires: z.string().optional(),
});

/**
 * What other services read of the stocks of codes (ARCHITECTURE rule 10: the service token, never
 * through the gateway): auth e-mails a customer the codes of their order confirmed from stock, and
 * the store's reconcile checks every sold code is on exactly one confirmed order.
 */
export function internalCodeRoutes(api: ApiRoutes, deps: OrderDeps, vault: CodeVault): void {
  api.route(
    {
      method: 'get',
      path: '/internal/orders/{orderId}/codes',
      summary:
        'The codes delivered to an order confirmed from stock, whole, for its confirmation e-mail; 404 for any other order',
      access: 'internal',
      answer: z.object({ orderId: z.string(), userId: z.string(), codes: z.array(codeContent) }),
    },
    async (req, res) => {
      const { orderId } = parseInput(orderParam, req.params);
      const order = await deps.orders.findById(orderId);
      // The decision is the truth: its order.confirmed event may arrive before the order shows it.
      const [decision] = order?.stocked ? await deps.orders.decisionsOf([orderId]) : [];
      if (!order || decision?.action !== 'confirmed') throw notFound(texts.orderMissing);
      const sealed = await deps.codes.sealedOf(orderId);
      deps.logger.info({ orderId, userId: order.userId, for: 'e-mail' }, 'delivered codes revealed');
      res.json({
        orderId,
        userId: order.userId,
        codes: sealed.map((c) => vault.open(order.productId, c.sealed)),
      });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/internal/orders/codes/reconcile',
      summary: 'Every sold code checked to be on exactly one confirmed order, for reconcile',
      access: 'internal',
      answer: z.object({ sold: z.number(), inFlight: z.number(), problems: z.array(z.string()) }),
    },
    async (_req, res) => {
      res.json(await checkCodes(deps.orders.models, deps.codes.models));
    },
  );
}
