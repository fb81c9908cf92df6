import { dateRangeSchema, pageSchema, z } from '@raseed/kit';

export const texts = {
  placed: 'Order placed successfully!',
  fillAll: 'Please fill all required fields.',
  quantity: (min: number, max: number) => `Quantity must be between ${min} and ${max}`,
  unavailable: 'This product is not available right now.',
  productMissing: 'Product not found',
  accepted: 'Order has been accepted.',
  rejected: 'Order has been rejected.',
  orderMissing: 'Order not found',
  bySupplier: 'This order is fulfilled by the supplier; its status comes from there.',
  alreadyDecided: (status: string) => `This order has already been ${status}.`,
  myOrdersOnly: 'You can only see your own orders.',
  cutOff: 'The order could not be completed. Please try again.',
};

/** Without limits from the product, a quantity is a whole number up to this. */
export const MAX_QUANTITY = 100;
export const ORDER_ID = /^[0-9a-f]{24}$/;

/**
 * The order draft the browser sends (spec §3). Only the product, its params and the
 * quantity are read: a price, total, username or user id in it is never trusted.
 */
export const orderDraftSchema = z.object({
  product_id: z
    .string({ required_error: texts.productMissing, invalid_type_error: texts.productMissing })
    .trim()
    .regex(/^[cp]-[\w-]{1,64}$/, texts.productMissing),
  quantity: z.coerce.number({ invalid_type_error: 'Quantity must be a whole number' }).default(1),
  /** 'label:value' pairs joined by commas, or an object of label → value. */
  params: z
    .union([z.string().max(2000), z.record(z.string().max(500))])
    .optional()
    .default(''),
});

export const decisionSchema = z.object({
  orderId: z.string().regex(ORDER_ID, texts.orderMissing),
  action: z.enum(['confirmed', 'rejected'], {
    errorMap: () => ({ message: "The action must be 'confirmed' or 'rejected'." }),
  }),
  /** What the customer reads with the order (for example a gift-card code). */
  replay: z.string().trim().max(2000).optional(),
});

const statusFilter = z.enum(['waiting', 'confirmed', 'rejected']).optional();
export const listSchema = pageSchema.merge(dateRangeSchema).extend({ status: statusFilter });
export const myOrdersSchema = listSchema.extend({ userId: z.string().max(64).optional() });

/** Reads the params as label → value, from the spec's 'label:value, …' string or an object. */
export function paramValues(params: string | Record<string, string>): Map<string, string> {
  const values = new Map<string, string>();
  if (typeof params !== 'string') {
    for (const [label, value] of Object.entries(params)) values.set(label.trim(), value.trim());
    return values;
  }
  for (const pair of params.split(',')) {
    const at = pair.indexOf(':');
    if (at > 0) values.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
  }
  return values;
}

/** The spec's stored form: 'label:value' pairs joined by commas, in the product's order. */
export const joinParams = (labels: string[], values: Map<string, string>) =>
  labels.map((label) => `${label}:${values.get(label) ?? ''}`).join(',');

// ---- Disputed and stuck supplier orders (issue 15, paths 3 and 4; see domain/disputes.ts) ----

/** An age as admins read it: '24 hours', '90 minutes', '2 seconds'. */
export function ageText(ms: number): string {
  const [amount, unit] =
    ms >= 3600_000 ? [ms / 3600_000, 'hour'] : ms >= 60_000 ? [ms / 60_000, 'minute'] : [ms / 1000, 'second'];
  const rounded = Math.round(amount * 10) / 10;
  return `${rounded} ${unit}${rounded === 1 ? '' : 's'}`;
}

const withReply = (reply: string | null, label = '') => (reply ? ` (${label}${reply})` : '');

export const disputeTexts = {
  notDisputed: 'This order has no dispute.',
  alreadyResolved: 'This dispute has already been resolved.',
  actionsFor: (kind: 'completed-after-refund' | 'rejected-after-ok') =>
    kind === 'completed-after-refund'
      ? "The supplier completed this order after it was refunded: resolve it by 'deliver' or 'write-off'."
      : "The supplier rejected this order after completing it: resolve it by 'refund' or 'write-off'.",
  resolved: {
    deliver: "The customer was charged again and now sees the supplier's code in My Orders.",
    refund: 'The order has been refunded to the customer.',
    'write-off': 'The cost has been written off: nothing was charged or refunded.',
  },
  /** The reason a customer reads on an order refunded after the supplier took it back. */
  refundedAfterOk: (reply: string | null) =>
    `The supplier cancelled this order after completing it${withReply(reply)}. It has been refunded.`,
  notStuck: (age: string) => `Only supplier orders waiting longer than ${age} can be decided here.`,
  supplierCompleted: (reply: string | null) =>
    `The supplier completed this order meanwhile${withReply(reply, 'reply: ')}; it has been confirmed with the supplier's reply.`,
  supplierRejected: (reason: string | null) =>
    `The supplier rejected this order meanwhile${withReply(reason)}; it has been rejected and refunded.`,
};

export const resolutionSchema = z.object({
  action: z.enum(['deliver', 'refund', 'write-off'], {
    errorMap: () => ({ message: "The action must be 'deliver', 'refund' or 'write-off'." }),
  }),
});

/** An admin's decision on a stuck order; the order is named by the path. */
export const stuckDecisionSchema = decisionSchema.omit({ orderId: true });
export const orderIdParam = z.string().regex(ORDER_ID, texts.orderMissing);
