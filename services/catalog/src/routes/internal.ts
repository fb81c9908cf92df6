import { notFound, objectIdPattern, parseInput, unitPrice, z, type ApiRoutes } from '@raseed/kit';
import type { CatalogModels, Category, CustomProduct, Product, SupplierProduct } from '../data/models';
import { texts } from '../domain/rules';
import { discountOf } from '../events/discounts';

export interface InternalDeps {
  models: CatalogModels;
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
});
export type OrderProduct = z.infer<typeof orderProduct>;

/**
 * The calls orders makes while a customer waits (ARCHITECTURE rules 1, 3, 10): the product
 * an order is for, priced on the server the way the storefront shows it (CatalogReads.page),
 * read fresh from the store rather than from the read cache.
 */
export function internalRoutes(api: ApiRoutes, deps: InternalDeps): void {
  const { models } = deps;

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
      const [supplier, created] = await Promise.all([
        id.startsWith('p-') ? models.SupplierProduct.findById(id).lean<SupplierProduct>() : null,
        id.startsWith('c-') ? models.Product.findOne({ _id: id, removed: false }).lean<Product>() : null,
      ]);
      const found = supplier ?? created;
      if (!found) throw notFound(texts.productNotFound);
      const [custom, discount, category] = await Promise.all([
        models.CustomProduct.findOne({ nameKey: found.nameKey }).lean<CustomProduct>(),
        discountOf(models, userId),
        models.Category.findOne({ nameKey: found.categoryKey }).lean<Category>(),
      ]);
      // The products of a category an admin switched off cannot be ordered either.
      const categoryOn = !category || category.available;
      const price = unitPrice(found.price, custom?.percentage ?? null, discount);
      const answer: OrderProduct = supplier
        ? {
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
            unitPrice: price,
            categoryName: supplier.categoryName,
          }
        : {
            id: found._id,
            name: found.name,
            kind: 'created',
            supplierId: null,
            available: categoryOn && found.available,
            params: found.params,
            qtyValues: null,
            unitPrice: price,
            categoryName: found.categoryName,
          };
      res.json(answer);
    },
  );
}
