import { HttpError, keepRecent, type ServiceClient } from '@raseed/kit';
import type IORedis from 'ioredis';

/** The product an order is for, priced for the caller by catalog (GET /internal/products/{id}). */
export interface PricedProduct {
  id: string;
  name: string;
  kind: 'created' | 'supplier';
  supplierId: string | null;
  available: boolean;
  params: string[];
  qtyValues: { min: number; max: number } | null;
  /** Micro-dollars, the caller's discount applied. */
  unitPrice: number;
  /** The catalogue's version the answer is at least as new as: where Redis keeps it, and its value. */
  version: { key: string; at: string } | null;
}

/** At most this long an answer is used again: a bound on what a change whose bump was lost leaves behind. */
const KEPT_MS = 60_000;
/** Answers kept, one a product and buyer; the least recently used goes first. */
const MOST_KEPT = 5_000;

/**
 * Products priced for their buyers by catalog, each answer used again while the catalogue's
 * version it names still stands in Redis: a customer ordering a product again costs one Redis
 * read instead of a call to catalog. Catalog moves that version on after every change of a
 * product, price, category, profit or discount, so once a change is complete no order is priced
 * as before it, as when catalog is asked (VersionedMemo). An answer with no version is not kept,
 * and while Redis is away, or is not the one catalog names, catalog is asked every time.
 */
export class CatalogPrices {
  private readonly kept = new Map<string, { product: PricedProduct; at: number }>();

  constructor(
    private readonly catalog: ServiceClient,
    /** The Redis catalog keeps its version in (its CACHE_REDIS_URL). */
    private readonly redis: IORedis,
  ) {}

  /** The product priced for the user; null when catalog has no such product. */
  async of(productId: string, userId: string): Promise<PricedProduct | null> {
    const name = `${productId} ${userId}`;
    const hit = this.kept.get(name);
    if (hit && Date.now() - hit.at < KEPT_MS && (await this.stands(hit.product.version))) {
      keepRecent(this.kept, name, hit, MOST_KEPT);
      return hit.product;
    }
    this.kept.delete(name);
    const product = await this.catalog
      .get<PricedProduct>(
        `/internal/products/${encodeURIComponent(productId)}?userId=${encodeURIComponent(userId)}`,
      )
      .catch((err: unknown) => {
        if (err instanceof HttpError && err.status === 404) return null;
        throw err;
      });
    if (!product) return null;
    if (product.version) keepRecent(this.kept, name, { product, at: Date.now() }, MOST_KEPT);
    return product;
  }

  private async stands(version: PricedProduct['version']): Promise<boolean> {
    if (!version) return false;
    const now = await this.redis.get(version.key).catch(() => null);
    return now === version.at;
  }
}
