import {
  asEvent,
  badRequest,
  parseInput,
  productNameText,
  z,
  type ApiRoutes,
  type EventEnvelope,
} from '@raseed/kit';
import type { Ledger } from '../data/ledger';
import { movementKeys, userIdSchema } from '../domain/rules';

const idParam = z.string().regex(/^[\w-]{1,64}$/, 'Invalid id');
const debitSchema = z.object({
  userId: userIdSchema,
  /** Micro-dollars (rule 3: whole numbers between services). */
  amount: z.number().int().positive().safe(),
  // Bounded and normalised the one way every service does, so a long name never fails an order.
  productName: z.string().max(10_000).default('').transform(productNameText),
});
const voidSchema = z.object({ userId: userIdSchema });
const orderDebitSchema = debitSchema.extend({
  /** The order's order.placed, to be born with its debit (ARCHITECTURE rule 11): see announcement. */
  announce: z.unknown().optional(),
});

/**
 * The order.placed event orders hands over with an order's debit: the debit decides that the
 * order is paid, so the entry that records it carries the event. It must be that order's, for
 * that user and that amount.
 */
function announcement(
  announce: unknown,
  debit: { orderId: string; userId: string; amount: number },
): EventEnvelope[] {
  if (announce === undefined) return [];
  const event = asEvent(announce);
  const placed = event?.type === 'order.placed' ? (event as EventEnvelope<'order.placed'>) : null;
  if (
    !placed ||
    placed.key !== debit.userId ||
    placed.data.orderId !== debit.orderId ||
    placed.data.userId !== debit.userId ||
    placed.data.total !== debit.amount
  ) {
    throw badRequest('The announcement does not match the debit.');
  }
  return [placed];
}

/**
 * The calls other services make while a person waits (ARCHITECTURE rule 10): orders
 * debits, voids and refunds (and reads whether an order was paid), and an admin's
 * withdrawal from payments. Each is idempotent by the order or payment id: a repeat
 * answers the first result and moves nothing.
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
      const { userId, amount, productName, announce } = parseInput(orderDebitSchema, req.body);
      const { entry, applied } = await ledger.move({
        account: userId,
        key: movementKeys.orderDebit(orderId),
        kind: 'movement',
        type: 'OUT',
        amount,
        productName,
        announce: announcement(announce, { orderId, userId, amount }),
      });
      res.json({ applied, balance: entry.balance, entryId: entry._id.toString() });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/internal/orders/{orderId}/void',
      summary: "Settles an unpaid order's fate: no debit may land for it afterwards",
      access: 'internal',
    },
    async (req, res) => {
      const orderId = parseInput(idParam, req.params.orderId);
      const { userId } = parseInput(voidSchema, req.body);
      // The void and the debit claim the same key: whichever was inserted first is the order's fate.
      const { entry } = await ledger.move({
        account: userId,
        key: movementKeys.orderDebit(orderId),
        kind: 'void',
        amount: 0,
        productName: '',
        status: 'void',
      });
      if (entry.kind === 'void') {
        res.json({ voided: true });
        return;
      }
      res.json({
        voided: false,
        debited: true,
        amount: entry.amount,
        account: entry.account,
        balance: entry.balance,
      });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/internal/orders/{orderId}',
      summary: 'Whether an order was paid for, refunded or voided',
      access: 'internal',
    },
    async (req, res) => {
      // Read from the ledger by the movements' keys, so orders can tell after a crash whether it was paid.
      const orderId = parseInput(idParam, req.params.orderId);
      const [debit, refund] = await Promise.all([
        ledger.byKey(movementKeys.orderDebit(orderId)),
        ledger.byKey(movementKeys.orderRefund(orderId)),
      ]);
      const voided = debit?.kind === 'void';
      res.json({
        debited: debit !== null && !voided,
        refunded: refund !== null,
        voided,
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
      // An order that was never paid for (or was voided) has nothing to refund.
      if (!debit || debit.kind === 'void') {
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
