import { dollarAmount, formatDollars, HttpError, objectIdPattern, toMicros } from '@raseed/kit';
import { z } from 'zod';

/** The account a ledger movement belongs to is the user's id. */
export const userIdSchema = z
  .string({ required_error: 'user_id is required', invalid_type_error: 'user_id is required' })
  .regex(objectIdPattern, 'User not found');

/** Idempotency keys: what a movement is for, one movement per key (ARCHITECTURE rule 3). */
export const movementKeys = {
  open: (account: string) => `open:${account}`,
  orderDebit: (orderId: string) => `order:${orderId}:debit`,
  orderRefund: (orderId: string) => `order:${orderId}:refund`,
  payment: (paymentId: string) => `payment:${paymentId}`,
  debtEdit: (operationId: string) => `debt:${operationId}`,
} as const;

export const insufficientText = (balanceMicros: number) =>
  `Insufficient balance. You have only ${formatDollars(balanceMicros)}$ in your balance`;

/** A debit larger than the balance: answered with the balance, so the caller can tell the user. */
export class InsufficientBalance extends HttpError {
  constructor(readonly balance: number) {
    super(422, insufficientText(balance), { code: 'insufficient_balance', balance });
  }
}

const invalidDebt = 'Please enter a valid debt (0 or more).';
const MAX_DEBT = toMicros(1_000_000);

export const editDebtSchema = z.object({
  user_id: userIdSchema,
  // 0 clears the debt.
  newdebt: dollarAmount({ required: invalidDebt, invalid: invalidDebt }, MAX_DEBT, { allowZero: true }),
});

export const balanceQuerySchema = z.object({ user_id: userIdSchema.optional() });
