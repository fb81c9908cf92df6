import { notFound, objectIdPattern, parseInput, unitPrice, z, type ApiRoutes } from '@raseed/kit';
import type { ReadCache } from '../data/cache';
import type { CatalogModels, Category, CustomProduct, Product, SupplierProduct } from '../data/models';
import { texts } from '../domain/rules';
import { discountOf } from '../events/discounts';

export interface InternalDeps {
  models: CatalogModels;
  /** Moved on by every change of the catalogue (and of a discount): see VersionedMemo. */
  cache: ReadCache;
}

/** A created ('c-') or supplier ('p-') product id. */
const productId = z.string().regex(/^[cp]-[\w.-]{1,100}$/, 'Invalid product id');
const productQuery = z.object({
  userId: z.string().regex(objectIdPattern, 'Invalid user id').optional(),
});

/** The product an order is placed for, priced for the user who places it. */
export const orderProduct = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['created', 'supplier']),
  /** The supplier's own id (text, as the supplier client takes it); null for created products. */
  supplierId: z.string().nullable(),
  available: z.boolean(),
  params: z.array(z.string()),
  qtyValues: z.object({ min: z.number(), max: z.number() }).nullable(),
  /** Integer micro-dollars for this user: price × custom multiplier × (1 − discount / 100). */
  unitPrice: z.number().int(),
  categoryName: z.string(),
  /**
   * The catalogue's version this answer is at least as new as (null when unknown): the caller may
   * use the answer again while the version in Redis at `key` is still `at` (see VersionedMemo).
   */
  version: z.object({ key: z.string(), at: z.string() }).nullable(),
});
export type OrderProduct = z.infer<typeof orderProduct>;

/**
 * The calls orders makes while a customer waits (ARCHITECTURE rules 1, 3, 10): the product
 * an order is for, priced on the server the way the storefront shows it (CatalogReads.page),
 * as the store holds it after the last complete change (VersionedMemo).
 */
export function internalRoutes(api: ApiRoutes, deps: InternalDeps): void {
  const { models } = deps;
  // Every order reads these: kept while the catalogue is unchanged, fresh after any change.
  const products = deps.cache.memo<Priceable | null>();
  const discounts = deps.cache.memo<number | null>();

  api.route(
    {
      method: 'get',
      path: '/internal/products/{id}',
      summary: 'The product an order is placed for, priced for the user',
      access: 'internal',
      query: productQuery,
      answer: orderProduct,
    },
    async (req, res) => {
      const id = parseInput(productId, req.params.id);
      const { userId } = parseInput(productQuery, req.query);
      // Read once, first: both reads use it, and what they answer is at least as new as it.
      const version = await deps.cache.version();
      const at = version?.at ?? null;
      const [found, discount] = await Promise.all([
        products.get(id, () => forOrder(models, id), at),
        userId ? discounts.get(userId, () => discountOf(models, userId), at) : null,
      ]);
      if (!found) throw notFound(texts.productNotFound);
      const { price, percentage, ...product } = found;
      const answer: OrderProduct = { ...product, unitPrice: unitPrice(price, percentage, discount), version };
      res.json(answer);
    },
  );
}

/** An order's product before the customer's discount: its base price and profit multiplier. */
type Priceable = Omit<OrderProduct, 'unitPrice' | 'version'> & { price: number; percentage: number | null };

/** The product as orders take it, with what prices it; null when there is no such product. */
async function forOrder(models: CatalogModels, id: string): Promise<Priceable | null> {
  const [supplier, created] = await Promise.all([
    id.startsWith('p-') ? models.SupplierProduct.findById(id).lean<SupplierProduct>() : null,
    id.startsWith('c-') ? models.Product.findOne({ _id: id, removed: false }).lean<Product>() : null,
  ]);
  const found = supplier ?? created;
  if (!found) return null;
  const [custom, category] = await Promise.all([
    models.CustomProduct.findOne({ nameKey: found.nameKey }).lean<CustomProduct>(),
    models.Category.findOne({ nameKey: found.categoryKey }).lean<Category>(),
  ]);
  // The products of a category an admin switched off cannot be ordered either.
  const categoryOn = !category || category.available;
  const pricing = { price: found.price, percentage: custom?.percentage ?? null };
  return supplier
    ? {
        ...pricing,
        id: supplier._id,
        name: supplier.name,
        kind: 'supplier',
        supplierId: supplier.supplierId,
        available: categoryOn && supplier.available && supplier.supplierAvailable && !supplier.removed,
        params: supplier.params,
        qtyValues:
          supplier.qtyValues?.min != null && supplier.qtyValues.max != null
            ? { min: supplier.qtyValues.min, max: supplier.qtyValues.max }
            : null,
        categoryName: supplier.categoryName,
      }
    : {
        ...pricing,
        id: found._id,
        name: found.name,
        kind: 'created',
        supplierId: null,
        available: categoryOn && found.available,
        params: found.params,
        qtyValues: null,
        categoryName: found.categoryName,
      };
}
