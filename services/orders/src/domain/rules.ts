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
