import {
  ACCOUNT_DELETED,
  dateRangeSchema,
  dollarAmount,
  objectIdPattern,
  pageSchema,
  toMicros,
  z,
} from '@raseed/kit';
import { createHash } from 'node:crypto';
import type { PaymentsConfig } from '../config';

/** The spec's texts (§5, §8) that the server answers too. */
export const texts = {
  setAmount: 'Set an amount, please.',
  invalidAmount: 'Please enter a valid amount (greater than 0).',
  invalidPrice: 'Please enter a valid price (greater than 0).',
  chooseMethod: 'Please choose Whish-Money or Binance.',
  attachReceipt: 'Please attach a screenshot of the transfer.',
  submitted: 'Payment submitted successfully!',
  userNotFound: 'User not found',
  paymentNotFound: 'Payment not found',
  accountDeleted: ACCOUNT_DELETED,
  receiptSubmitted: 'This receipt has already been submitted.',
  tooManyWaiting: 'You have too many top-ups waiting for review.',
} as const;

/** A receipt's identity: the SHA-256 of its bytes, whatever the file is called. */
export const receiptDigest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Payment methods (spec §9): Whish-Money keeps a 1% fee, so 99% of the amount is sent; Binance the full amount. */
export const METHODS = {
  'Whish-Money': { sharePercent: 99 },
  Binance: { sharePercent: 100 },
} as const;
export type Method = keyof typeof METHODS;

/** What the customer sends for a top-up of `amount` micro-dollars, rounded to the cent as shown. */
export function amountToSend(method: Method, amount: number): number {
  const cents = Math.round((amount * METHODS[method].sharePercent) / 100 / 10_000);
  return cents * 10_000;
}

export function methodDestinations(config: PaymentsConfig) {
  return [
    {
      name: 'Whish-Money' as const,
      sharePercent: METHODS['Whish-Money'].sharePercent,
      destinations: [{ label: 'Whish-Money phone number', value: config.WHISH_PHONE }],
    },
    {
      name: 'Binance' as const,
      sharePercent: METHODS.Binance.sharePercent,
      destinations: [
        { label: 'USDT (TRC20) address', value: config.BINANCE_TRC20_ADDRESS },
        { label: 'USDT (BEP20) address', value: config.BINANCE_BEP20_ADDRESS },
        { label: 'Binance Pay ID', value: config.BINANCE_PAY_ID },
      ],
    },
  ];
}

const userId = z
  .string({ required_error: 'User ID is missing.', invalid_type_error: 'User ID is missing.' })
  .regex(objectIdPattern, texts.userNotFound);

export function paymentSchemas(config: PaymentsConfig) {
  const max = toMicros(config.MAX_PAYMENT_AMOUNT);
  return {
    /** A customer's top-up form; user_id, username, type and status are not the customer's to choose. */
    topUp: z.object({
      product_name: z.enum(Object.keys(METHODS) as [Method, ...Method[]], {
        errorMap: () => ({ message: texts.chooseMethod }),
      }),
      amount: dollarAmount({ required: texts.setAmount, invalid: texts.invalidAmount }, max),
    }),
    /** An admin's credit (IN) or withdrawal (OUT), or a credit given as debt. */
    adminPayment: z.object({
      user_id: userId,
      amount: dollarAmount({ required: texts.invalidPrice, invalid: texts.invalidPrice }, max),
      type: z.enum(['IN', 'OUT'], { errorMap: () => ({ message: 'type must be IN or OUT' }) }).default('IN'),
    }),
  };
}

export const decisionSchema = z.object({
  action: z.enum(['confirmed', 'rejected'], {
    errorMap: () => ({ message: 'action must be confirmed or rejected' }),
  }),
});

export const listSchema = pageSchema.merge(dateRangeSchema);
export const historySchema = listSchema.extend({
  status: z.enum(['waiting', 'confirmed', 'rejected']).optional(),
});
export const myPaymentsSchema = listSchema.extend({ userId: userId.optional() });
