import { createHash } from 'node:crypto';
import { buildCatalogue, SEEDED_SIZE, type SimProduct } from './catalogue';
import {
  CANCELLED_AFTER_OK,
  parseFault,
  parseScenario,
  SimRefusal,
  type Fault,
  type Outcome,
  type Scenario,
} from './scenarios';

export type OrderStatus = 'wait' | 'OK' | 'reject';

export interface SimOrder {
  orderId: string;
  uuid: string | null;
  productId: number;
  quantity: number;
  params: Record<string, string>;
  /** What the order costs: unit price times quantity, in micro-dollars. */
  priceMicros: number;
  outcome: Outcome;
  /** How many times a check call asked about this order. */
  checks: number;
  placedAt: Date;
}

export interface OrderRequest {
  productId: string;
  quantity?: string;
  uuid?: string;
  /** The query of the call: the product's params are read from it by label. */
  fields: Record<string, unknown>;
}

/**
 * After-polls orders wait through their first N checks and are OK from check N + 1;
 * ok-then-reject orders are OK through their first N checks and rejected from check N + 1.
 */
export function statusOf(order: SimOrder): OrderStatus {
  const { outcome } = order;
  switch (outcome.kind) {
    case 'reject':
      return 'reject';
    case 'complete':
    case 'late':
      return 'OK';
    case 'wait':
      return 'wait';
    case 'ok-then-reject':
      return order.checks > outcome.checks ? 'reject' : 'OK';
    case 'after-polls':
      return order.checks > outcome.polls ? 'OK' : 'wait';
  }
}

/** Whether checks see the order yet: a late order shows only some seconds after it was placed. */
export function isVisible(order: SimOrder, now = Date.now()): boolean {
  const { outcome } = order;
  return outcome.kind !== 'late' || now >= order.placedAt.getTime() + outcome.seconds * 1000;
}

/** The reply a settled order carries: a card's code, a top-up's receipt, or the reason for a reject. */
export function replayOf(order: SimOrder): string | null {
  const status = statusOf(order);
  if (status === 'wait') return null;
  if (status === 'reject') return order.outcome.kind === 'reject' ? order.outcome.reason : CANCELLED_AFTER_OK;
  const target = Object.values(order.params)[0];
  if (target) return `Delivered to ${target}`;
  const code = createHash('sha256').update(order.orderId).digest('hex').slice(0, 16).toUpperCase();
  return code.match(/.{4}/g)!.join('-');
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/**
 * The simulated supplier's state: its catalogue, the scenarios set for products and calls,
 * and the orders placed, each once per order_uuid.
 */
export class SimSupplier {
  private catalogue: SimProduct[] = [];
  private byId = new Map<number, SimProduct>();
  private readonly scenarios = new Map<number, Scenario>();
  private orders: SimOrder[] = [];
  private byOrderId = new Map<string, SimOrder>();
  private byUuid = new Map<string, SimOrder>();
  /** Order ids keep growing across resets, so a reset never hands out an id twice. */
  private lastOrder = 4_100_000;
  catalogueFault: Fault | null = null;
  checkFault: Fault | null = null;

  constructor(private readonly startSize = SEEDED_SIZE) {
    this.reset();
  }

  get products(): readonly SimProduct[] {
    return this.catalogue;
  }

  get placed(): readonly SimOrder[] {
    return this.orders;
  }

  product(id: number | string): SimProduct | undefined {
    return this.byId.get(Number(id));
  }

  useCatalogue(size: number): void {
    this.catalogue = buildCatalogue(size);
    this.byId = new Map(this.catalogue.map((p) => [p.id, p]));
  }

  /** Back to the catalogue the simulator started with, no scenarios and no orders. */
  reset(): void {
    this.useCatalogue(this.startSize);
    this.clearScenarios();
    this.orders = [];
    this.byOrderId = new Map();
    this.byUuid = new Map();
  }

  updateProduct(
    id: number | string,
    change: { price?: number; available?: boolean; name?: string },
  ): SimProduct {
    const product = this.known(id);
    if (change.name !== undefined) product.name = change.name;
    if (change.price !== undefined) product.priceMicros = Math.round(change.price * 1_000_000);
    if (change.available !== undefined) product.available = change.available;
    return product;
  }

  setScenario(productId: number | string, scenario: string): void {
    this.scenarios.set(this.known(productId).id, parseScenario(scenario));
  }

  scenarioFor(productId: number | string): Scenario | undefined {
    return this.scenarios.get(Number(productId));
  }

  setCatalogueScenario(scenario: string | null): void {
    this.catalogueFault = scenario === null ? null : parseFault(scenario);
  }

  setCheckScenario(scenario: string | null): void {
    this.checkFault = scenario === null ? null : parseFault(scenario);
  }

  clearScenarios(): void {
    this.scenarios.clear();
    this.catalogueFault = null;
    this.checkFault = null;
  }

  /** Places an order, or answers the one already placed under the same order_uuid. */
  place(request: OrderRequest, outcome: Outcome): SimOrder {
    const uuid = text(request.uuid) || null;
    const earlier = uuid === null ? undefined : this.byUuid.get(uuid);
    if (earlier) return earlier;
    const product = this.known(request.productId);
    if (!product.available) throw new SimRefusal(400, 'Product is not available');
    const quantity = Number(request.quantity ?? 1);
    if (!Number.isInteger(quantity) || quantity < 1)
      throw new SimRefusal(400, 'Quantity must be a whole number');
    const limits = product.qtyValues;
    if (limits && (quantity < limits.min || quantity > limits.max)) {
      throw new SimRefusal(400, `Quantity must be between ${limits.min} and ${limits.max}`);
    }
    const params: Record<string, string> = {};
    for (const label of product.params) {
      const value = text(request.fields[label]);
      if (!value) throw new SimRefusal(400, `Missing parameter: ${label}`);
      params[label] = value;
    }
    const order: SimOrder = {
      orderId: String(++this.lastOrder),
      uuid,
      productId: product.id,
      quantity,
      params,
      priceMicros: product.priceMicros * quantity,
      outcome,
      checks: 0,
      placedAt: new Date(),
    };
    this.orders.push(order);
    this.byOrderId.set(order.orderId, order);
    if (uuid) this.byUuid.set(uuid, order);
    return order;
  }

  /** The orders among the ids (each counted as checked once); unknown ids, and late orders not shown yet, are left out. */
  check(ids: string[], byUuid: boolean): SimOrder[] {
    const index = byUuid ? this.byUuid : this.byOrderId;
    const found = [...new Set(ids)].flatMap((id) => index.get(id) ?? []).filter((o) => isVisible(o));
    for (const order of found) order.checks++;
    return found;
  }

  private known(id: number | string): SimProduct {
    const product = this.product(id);
    if (!product) throw new SimRefusal(404, 'Product not found');
    return product;
  }
}
