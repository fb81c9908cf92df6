import { parseInput, z, type ApiRoutes } from '@raseed/kit';
import type { Ledger } from '../data/ledger';
import { movementKeys, userIdSchema } from '../domain/rules';

const idParam = z.string().regex(/^[\w-]{1,64}$/, 'Invalid id');
const debitSchema = z.object({
  userId: userIdSchema,
  /** Micro-dollars (rule 3: whole numbers between services). */
  amount: z.number().int().positive().safe(),
  productName: z.string().max(200).default(''),
});

/**
 * The calls other services make while a person waits (ARCHITECTURE rule 10): orders
 * debits and refunds (and reads whether an order was paid), and an admin's withdrawal from payments. Each is idempotent by the
 * order or payment id: a repeat answers the first result and moves nothing.
 */
export function internalRoutes(api: ApiRoutes, ledger: Ledger): void {
  api.route(
    {
      method: 'post',
      path: '/internal/orders/{orderId}/debit',
      summary: 'Pays for an order',
      access: 'internal',
    },
    async (req, res) => {
      const orderId = parseInput(idParam, req.params.orderId);
      const { userId, amount, productName } = parseInput(debitSchema, req.body);
      const { entry, applied } = await ledger.move({
        account: userId,
        key: movementKeys.orderDebit(orderId),
        kind: 'movement',
        type: 'OUT',
        amount,
        productName,
      });
      res.json({ applied, balance: entry.balance, entryId: entry._id.toString() });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/internal/orders/{orderId}',
      summary: 'Whether an order was paid for and refunded',
      access: 'internal',
    },
    async (req, res) => {
      // Read from the ledger by the movements' keys, so orders can tell after a crash whether it was paid.
      const orderId = parseInput(idParam, req.params.orderId);
      const [debit, refund] = await Promise.all([
        ledger.byKey(movementKeys.orderDebit(orderId)),
        ledger.byKey(movementKeys.orderRefund(orderId)),
      ]);
      res.json({
        debited: debit !== null,
        refunded: refund !== null,
        amount: debit?.amount ?? 0,
        account: debit?.account ?? null,
      });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/internal/orders/{orderId}/refund',
      summary: 'Refunds an order',
      access: 'internal',
    },
    async (req, res) => {
      const orderId = parseInput(idParam, req.params.orderId);
      const debit = await ledger.byKey(movementKeys.orderDebit(orderId));
      // An order that was never paid for has nothing to refund.
      if (!debit) {
        res.json({ refunded: false, applied: false });
        return;
      }
      const { entry, applied } = await ledger.move({
        account: debit.account,
        key: movementKeys.orderRefund(orderId),
        kind: 'movement',
        type: 'IN',
        amount: debit.amount,
        productName: debit.productName,
        status: 'refunded',
      });
      res.json({ refunded: true, applied, balance: entry.balance });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/internal/payments/{paymentId}/withdraw',
      summary: "An admin's withdrawal",
      access: 'internal',
    },
    async (req, res) => {
      const paymentId = parseInput(idParam, req.params.paymentId);
      const { userId, amount, productName } = parseInput(debitSchema, req.body);
      const { entry, applied } = await ledger.move({
        account: userId,
        key: movementKeys.payment(paymentId),
        kind: 'movement',
        type: 'OUT',
        amount,
        productName,
      });
      res.json({ applied, balance: entry.balance, createdAt: entry.createdAt });
    },
  );
}
