import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { traceCarrier, type TraceCarrier } from './trace-context';

/**
 * Every event the services exchange, one schema each. Producers validate before an
 * event enters the outbox and consumers validate again on arrival. Each event type
 * has a Kafka topic of the same name; the message key is the user id, so one user's
 * events stay in order.
 */
const userId = z.string().min(1);
/** Money in events is integer micro-dollars (ARCHITECTURE rule 3). */
const micros = z.number().int().safe();

/** One ledger entry of a wallet: what moved, under which idempotency key, and the balance after it. */
const movement = z.object({
  userId,
  key: z.string().min(1),
  seq: z.number().int().positive(),
  amount: micros.positive(),
  balance: micros.min(0),
  debt: micros.min(0),
  productName: z.string(),
});

export const eventSchemas = {
  'user.registered': z.object({
    userId,
    username: z.string(),
    email: z.string(),
    phone: z.string(),
    role: z.enum(['admin', 'user']),
    createdAt: z.string(),
  }),
  'user.deleted': z.object({ userId }),
  /** Every session of the user signed before `at` (ms since the epoch) is over: see SessionEnds. */
  'user.sessions-ended': z.object({ userId, at: z.number().int().nonnegative() }),
  'user.discount-changed': z.object({
    userId,
    percentage: z.number().positive().max(100).nullable(),
    setAt: z.string(),
  }),

  'payment.submitted': z.object({
    paymentId: z.string().min(1),
    userId,
    method: z.string(),
    amount: micros.positive(),
    createdAt: z.string(),
  }),
  /** A payment that moves money: a confirmed top-up, or an admin's credit, debt credit or withdrawal. */
  'payment.confirmed': z.object({
    paymentId: z.string().min(1),
    userId,
    type: z.enum(['IN', 'OUT']),
    amount: micros.positive(),
    productName: z.string(),
    /** An admin's credit given as debt: the user's debt rises by the amount too. */
    asDebt: z.boolean(),
    confirmedAt: z.string(),
  }),
  'payment.rejected': z.object({ paymentId: z.string().min(1), userId, amount: micros.positive() }),

  'wallet.credited': movement,
  'wallet.debited': movement,
  /** A product as customers see it changed: added, repriced, made (un)available or removed. */
  'catalog.product-changed': z.object({
    productId: z.string().min(1),
    name: z.string(),
    categoryName: z.string(),
    price: micros.min(0),
    available: z.boolean(),
    change: z.enum(['created', 'updated', 'removed']),
  }),
  /** A paid order, waiting for an admin (created products) or the supplier. */
  'order.placed': z.object({
    orderId: z.string().min(1),
    userId,
    productId: z.string().min(1),
    productName: z.string(),
    quantity: z.number().int().positive(),
    total: micros.positive(),
    placedAt: z.string(),
    /** Delivered from a stock of codes the moment it was paid: no one waits on it. */
    fromStock: z.boolean().optional(),
    /** A created product's order waits for an admin (or its stock); a supplier's goes to its placement job. */
    kind: z.enum(['created', 'supplier']).optional(),
  }),
  /** A supplier contradicted a settled order (a completion after our refund, a reject after its OK). */
  'order.disputed': z.object({
    orderId: z.string().min(1),
    kind: z.enum(['completed-after-refund', 'rejected-after-ok']),
    supplierOrderId: z.string(),
  }),
  /** A paid supplier order has waited longer than ORDER_STUCK_HOURS: an admin should decide it. */
  'order.stuck': z.object({
    orderId: z.string().min(1),
    userId,
    productName: z.string(),
    total: micros.positive(),
    placedAt: z.string(),
  }),
  'order.confirmed': z.object({
    orderId: z.string().min(1),
    userId,
    total: micros.positive(),
    replay: z.string().nullable(),
  }),
  /** A rejected order; its total went back to the wallet. */
  'order.rejected': z.object({
    orderId: z.string().min(1),
    userId,
    total: micros.positive(),
    reason: z.string().nullable(),
  }),
  'wallet.debt-changed': z.object({ userId, key: z.string(), seq: z.number().int(), debt: micros.min(0) }),
  /**
   * A created product's stock of codes as it is now: counted after an upload, a sale or a code
   * given back. A product out of stock is shown so, unless its admin takes orders by hand then.
   */
  'stock.level-changed': z.object({
    productId: z.string().min(1),
    available: z.number().int().nonnegative(),
    manualWhenOut: z.boolean(),
    /** When it was counted (ISO): a copy keeps the newest count. */
    countedAt: z.string(),
  }),
  /** A stock fell to its admin's low-stock threshold; once per refill (the newest upload). */
  'stock.low': z.object({
    productId: z.string().min(1),
    productName: z.string(),
    available: z.number().int().nonnegative(),
    threshold: z.number().int().positive(),
  }),
} as const;

export type EventType = keyof typeof eventSchemas;
export type EventData<T extends EventType> = z.infer<(typeof eventSchemas)[T]>;

export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  occurredAt: string;
  source: string;
  key: string;
  data: EventData<T>;
  /** The trace the event was born in, continued by the relay's send and by each consumer. */
  trace?: TraceCarrier;
}

export const EVENT_TYPES = Object.keys(eventSchemas) as EventType[];

export function createEvent<T extends EventType>(
  source: string,
  type: T,
  key: string,
  data: EventData<T>,
  id: string = randomUUID(),
): EventEnvelope<T> {
  const trace = traceCarrier();
  return {
    id,
    type,
    occurredAt: new Date().toISOString(),
    source,
    key,
    data: eventSchemas[type].parse(data) as EventData<T>,
    ...(trace && { trace }),
  };
}

const envelopeSchema = z.object({
  id: z.string().min(1),
  type: z.string(),
  occurredAt: z.string(),
  source: z.string(),
  key: z.string(),
  data: z.unknown(),
  trace: z.record(z.string()).optional(),
});

/** Parses a message from Kafka; returns null for anything that is not a valid, known event. */
export function parseEvent(raw: string): EventEnvelope | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  return asEvent(json);
}

/** The value as a valid, known event, or null (an event handed over in a request body, say). */
export function asEvent(json: unknown): EventEnvelope | null {
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success || !Object.hasOwn(eventSchemas, envelope.data.type)) return null;
  const type = envelope.data.type as EventType;
  const data = eventSchemas[type].safeParse(envelope.data.data);
  if (!data.success) return null;
  return { ...envelope.data, type, data: data.data } as EventEnvelope;
}
