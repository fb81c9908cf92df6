import pRetry from 'p-retry';
import { HttpError } from './errors';
import type { Logger } from './logger';
import { toMicros } from './money';
import { JobFailed } from './queue';
import { productNameText } from './validation';
import { z } from './zod';

/** A product of the external supplier's catalogue (GET /client/api/products). */
export interface SupplierProduct {
  /** The supplier's own id, as text. */
  id: string;
  name: string;
  /** Micro-dollars. */
  price: number;
  categoryName: string;
  categoryImg: string;
  /** Labels of the inputs an order needs, e.g. 'Player ID'. */
  params: string[];
  qtyValues: { min: number; max: number } | null;
  available: boolean;
}

/** An order as the supplier sees it: 'OK' is done, 'reject' is refused, 'wait' is still on its way. */
export interface SupplierOrder {
  orderId: string;
  /** Our order's id, sent as order_uuid when it was placed. */
  uuid: string | null;
  status: 'wait' | 'OK' | 'reject';
  /** The supplier's first reply text: a card's code, or why it rejected. */
  replay: string | null;
}

/**
 * timeout: no answer in time; unavailable: unreachable or a 5xx; refused: the supplier said
 * no (its message is kept); malformed: an answer outside the supplier's contract.
 */
export type SupplierErrorKind = 'timeout' | 'unavailable' | 'refused' | 'malformed';

export class SupplierError extends Error {
  override readonly name = 'SupplierError';

  constructor(
    message: string,
    readonly kind: SupplierErrorKind,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The reason a sync job is queued with when an admin asks for it now and waits (runJob). */
export const ADMIN_RUN = 'admin';

/** A sync job's answer: its figures, or why the supplier could not be asked. */
export type SyncAnswer<R> = R | { supplierError: string };

/**
 * Runs a supplier sync in its job. For a run an admin waits for, a supplier that cannot be
 * asked is the answer (the route shows it as a 502); any other run throws, so BullMQ tries it
 * again with backoff.
 */
export async function supplierSync<R>(reason: string, sync: () => Promise<R>): Promise<SyncAnswer<R>> {
  try {
    return await sync();
  } catch (err) {
    if (reason === ADMIN_RUN && err instanceof SupplierError) return { supplierError: err.message };
    throw err;
  }
}

/**
 * What an admin's "sync now" answers, from its job (runJob): the figures; 202 `queued` while the
 * job still runs; a 502 from `unreachable` when the supplier could not be asked; a 503 when the
 * job failed for another reason (its worker logged why, and the schedule tries again).
 */
export async function adminSyncAnswer<R extends object>(
  run: Promise<SyncAnswer<R> | undefined>,
  unreachable: (reason: string) => HttpError,
): Promise<{ status: 200 | 202; body: object }> {
  const answer = await run.catch((err: unknown) => {
    if (err instanceof JobFailed)
      throw new HttpError(503, 'The sync could not finish. Please try again in a moment.');
    throw err;
  });
  if (!answer) return { status: 202, body: { success: true, queued: true } };
  if ('supplierError' in answer) throw unreachable(answer.supplierError);
  return { status: 200, body: { success: true, ...answer } };
}

/** The supplier answers at most this many orders per check call. */
const CHECK_BATCH = 100;

const supplierId = z.union([z.string().min(1), z.number()]).transform(String);
const reply = z
  .array(z.object({ replay: z.array(z.string()) }))
  .nullish()
  .transform((replies) => replies?.[0]?.replay[0] ?? null);
const orderStatus = z.enum(['wait', 'OK', 'reject']);

const productList = z.array(
  z.object({
    id: supplierId,
    name: z.string().min(1),
    price: z.unknown(),
    category_name: z.string().min(1),
    category_img: z.string().default(''),
    params: z
      .union([z.array(z.string()), z.string().transform((label) => [label])])
      .nullish()
      .transform((params) => params ?? []),
    qty_values: z
      .object({ min: z.coerce.number().int(), max: z.coerce.number().int() })
      .nullish()
      .transform((limits) => limits ?? null),
    available: z.boolean().default(true),
  }),
);
const placedAnswer = z.object({
  status: z.literal('OK'),
  data: z.object({ order_id: supplierId, status: orderStatus }),
  replay_api: reply,
});
const checkAnswer = z.object({
  status: z.literal('OK'),
  data: z.array(
    z.object({
      order_id: supplierId,
      order_uuid: z.string().nullish(),
      status: orderStatus,
      replay_api: reply,
    }),
  ),
});
const refusal = z.object({ status: z.literal('ERROR'), message: z.string() });

/** A price the store can sell at: a positive dollar amount, as a number or numeric text. */
function priceMicros(price: unknown): number | null {
  const dollars = typeof price === 'string' && price.trim() !== '' ? Number(price) : price;
  return typeof dollars === 'number' && Number.isFinite(dollars) && dollars > 0 ? toMicros(dollars) : null;
}

function parsed<S extends z.ZodTypeAny>(schema: S, body: unknown, call: string): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new SupplierError(`The supplier's answer to ${call} is not in its documented shape`, 'malformed');
  }
  return result.data;
}

/**
 * The one client of the external supplier's API. Reads (the catalogue, order checks) are
 * retried with backoff on timeouts and unavailability; placing an order is tried once,
 * because only a check by order_uuid can tell whether a failed attempt reached the supplier.
 */
export class SupplierClient {
  private readonly url: string;
  private readonly token: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly logger?: Logger;

  constructor(options: {
    url: string;
    token: string;
    timeoutMs?: number;
    retries?: number;
    logger?: Logger;
  }) {
    this.url = options.url.replace(/\/+$/, '');
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retries = options.retries ?? 3;
    this.logger = options.logger;
  }

  /** The catalogue; a product whose price is not a positive amount is left out with a warning. */
  async products(): Promise<SupplierProduct[]> {
    const list = await this.retried(async () =>
      parsed(productList, await this.call('GET', '/client/api/products'), 'the product list'),
    );
    const products: SupplierProduct[] = [];
    const skipped: string[] = [];
    for (const p of list) {
      const price = priceMicros(p.price);
      if (price === null) {
        skipped.push(p.id);
        continue;
      }
      products.push({
        id: p.id,
        name: productNameText(p.name),
        price,
        categoryName: productNameText(p.category_name),
        categoryImg: p.category_img,
        params: p.params,
        qtyValues: p.qty_values,
        available: p.available,
      });
    }
    if (skipped.length) {
      this.logger?.warn(
        { skipped: skipped.length, productIds: skipped.slice(0, 20) },
        'supplier products without a valid price were left out',
      );
    }
    return products;
  }

  /** Places an order under our order's id; placing again with the same uuid answers the same order. */
  async placeOrder(input: {
    uuid: string;
    productId: string;
    quantity: number;
    params: Record<string, string>;
  }): Promise<SupplierOrder> {
    const query = new URLSearchParams({ qty: String(input.quantity), order_uuid: input.uuid });
    for (const [label, value] of Object.entries(input.params)) {
      if (!query.has(label)) query.set(label, value);
    }
    const path = `/client/api/newOrder/${encodeURIComponent(input.productId)}/params`;
    const answer = parsed(placedAnswer, await this.call('POST', path, query), 'a new order');
    return {
      orderId: answer.data.order_id,
      uuid: input.uuid,
      status: answer.data.status,
      replay: answer.replay_api,
    };
  }

  /** The orders among the ids (the supplier's order ids, or our uuids); unknown ones are absent. */
  async orders(ids: string[], by: 'id' | 'uuid' = 'id'): Promise<SupplierOrder[]> {
    const unique = [...new Set(ids)];
    const found: SupplierOrder[] = [];
    for (let i = 0; i < unique.length; i += CHECK_BATCH) {
      const query = new URLSearchParams({
        orders: unique.slice(i, i + CHECK_BATCH).join(','),
        uuid: by === 'uuid' ? '1' : '0',
      });
      const answer = await this.retried(async () =>
        parsed(checkAnswer, await this.call('GET', '/client/api/check', query), 'an order check'),
      );
      for (const order of answer.data) {
        found.push({
          orderId: order.order_id,
          uuid: order.order_uuid ?? null,
          status: order.status,
          replay: order.replay_api,
        });
      }
    }
    return found;
  }

  /** A timeout or an unavailable supplier is tried again; a refusal or a malformed answer is final. */
  private retried<T>(read: () => Promise<T>): Promise<T> {
    return pRetry(
      async () => {
        try {
          return await read();
        } catch (err) {
          if (err instanceof SupplierError && (err.kind === 'refused' || err.kind === 'malformed')) {
            throw new pRetry.AbortError(err);
          }
          throw err;
        }
      },
      {
        retries: this.retries,
        minTimeout: 100,
        maxTimeout: 2000,
        onFailedAttempt: (err) => {
          this.logger?.warn({ err: err.message, attempt: err.attemptNumber }, 'supplier call failed');
        },
      },
    );
  }

  private async call(method: 'GET' | 'POST', path: string, query?: URLSearchParams): Promise<unknown> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.url}${path}${query ? `?${query}` : ''}`, {
        method,
        headers: { 'api-token': this.token, accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      if ((err as { name?: unknown }).name === 'TimeoutError') {
        throw new SupplierError(`The supplier did not answer within ${this.timeoutMs} ms`, 'timeout');
      }
      throw new SupplierError('The supplier could not be reached', 'unavailable');
    }
    if (res.status >= 500) {
      throw new SupplierError(`The supplier is unavailable (HTTP ${res.status})`, 'unavailable', res.status);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const refused = refusal.safeParse(body);
    if (refused.success) throw new SupplierError(refused.data.message, 'refused', res.status);
    if (!res.ok)
      throw new SupplierError(`The supplier refused the call (HTTP ${res.status})`, 'refused', res.status);
    if (body === undefined)
      throw new SupplierError('The supplier answered something other than JSON', 'malformed');
    return body;
  }
}
