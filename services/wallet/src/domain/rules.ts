import { conflict, dollarAmount, formatDollars, HttpError, objectIdPattern, toMicros } from '@raseed/kit';
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
  /** An admin's Idempotency-Key is theirs alone: two admins' equal keys are two operations. */
  debtEdit: (adminId: string, operationId: string) => `debt:${adminId}:${operationId}`,
} as const;

export const insufficientText = (balanceMicros: number) =>
  `Insufficient balance. You have only ${formatDollars(balanceMicros)}$ in your balance`;

/** A debit larger than the balance: answered with the balance, so the caller can tell the user. */
export class InsufficientBalance extends HttpError {
  constructor(readonly balance: number) {
    super(422, insufficientText(balance), { code: 'insufficient_balance', balance });
  }
}

/** A debit after the order's fate was settled without it (the order's debit key holds a void). */
export const orderVoid = () =>
  conflict('The order could not be completed. Please try again.', { code: 'order_void' });

/** Change Debt over a change the admin did not see (the debt is no longer the one the form showed). */
export const debtChanged = () =>
  conflict('The debt has changed meanwhile. Please reload and try again.', { debtStatus: false });

const invalidDebt = 'Please enter a valid debt (0 or more).';
const MAX_DEBT = toMicros(1_000_000);
const debtTexts = { required: invalidDebt, invalid: invalidDebt };

export const editDebtSchema = z.object({
  user_id: userIdSchema,
  // 0 clears the debt.
  newdebt: dollarAmount(debtTexts, MAX_DEBT, { allowZero: true }),
  // The debt the form showed; older clients do not send it. Debts given as credit may exceed MAX_DEBT.
  expected_debt: dollarAmount(debtTexts, Number.MAX_SAFE_INTEGER, { allowZero: true }).optional(),
});

export const balanceQuerySchema = z.object({ user_id: userIdSchema.optional() });
