import { pageAnswer, pageSchema, parseInput, z, type ApiRoutes } from '@raseed/kit';
import type { PaymentStore } from '../data/payments';

/** For the wallet's reconcile: every payment that moved money (ARCHITECTURE rule 10). */
export function internalRoutes(api: ApiRoutes, payments: PaymentStore): void {
  const query = pageSchema.extend({ limit: z.coerce.number().int().min(1).max(1000).default(500) });
  api.route(
    {
      method: 'get',
      path: '/internal/payments/confirmed',
      summary: 'Confirmed payments',
      access: 'internal',
    },
    async (req, res) => {
      const page = parseInput(query, req.query);
      const { items, total } = await payments.confirmed(page.page, page.limit);
      res.json({
        payments: items.map((p) => ({
          id: p._id.toString(),
          userId: p.userId,
          type: p.type,
          amount: p.amount,
          confirmedAt: (p.decidedAt ?? p.createdAt).toISOString(),
        })),
        ...pageAnswer(page, total),
      });
    },
  );
}
