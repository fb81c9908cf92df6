import {
  displayPrice,
  notFound,
  parseInput,
  unitPrice,
  z,
  type ApiRoutes,
  type ObjectStore,
} from '@raseed/kit';
import type { Request } from 'express';
import { imageUrl, IMAGE_ROUTE, type CatalogReads, type CategoryPage } from '../data/catalog';
import type { ReadCache } from '../data/cache';
import type {
  CatalogModels,
  Category,
  CustomCategory,
  CustomProduct,
  Product,
  SupplierProduct,
} from '../data/models';
import { discountOf } from '../events/discounts';
import { categoryPageQuery } from '../domain/rules';
import { nameKey } from '../domain/sections';
import { profitPercent } from '@raseed/kit';

export interface ReadDeps {
  models: CatalogModels;
  reads: CatalogReads;
  cache: ReadCache;
  images: ObjectStore;
}

const subcategory = z.object({ id: z.string(), name: z.string(), image: z.string() });
const pageProduct = z.object({
  id: z.string(),
  name: z.string(),
  price: z.number().openapi({ description: 'Dollars for the caller (their discount applied), two decimals' }),
  available: z.boolean(),
  out_of_stock: z
    .boolean()
    .openapi({ description: 'Sold out: shown, but not orderable until codes come in' }),
  image: z.string(),
  params: z.array(z.string()),
  qty_values: z.object({ min: z.number(), max: z.number() }).nullable(),
});

const isAdmin = (req: Request) => req.user?.role === 'admin';

export const categoryView = (c: Category) => ({
  id: c._id.toString(),
  category_name: c.name,
  section: c.section,
  image: imageUrl(c.image),
  available: c.available,
  created_at: c.createdAt,
});

export const productView = (p: Product) => ({
  id: p._id,
  product_name: p.name,
  price: displayPrice(p.price),
  category_name: p.categoryName,
  parent_id: p.parentId,
  available: p.available,
  image: imageUrl(p.image),
  params: p.params,
  fields: p.fields.map((f) => ({ fieldName: f.name, fieldType: f.type, fieldValue: f.value })),
  created_at: p.createdAt,
});

export const customProductView = (c: CustomProduct) => ({
  id: c._id.toString(),
  product_name: c.name,
  percentage: c.percentage,
  profit_percent: profitPercent(c.percentage),
  category_img: c.image ? imageUrl(c.image) : null,
});

export const customCategoryView = (c: CustomCategory) => ({
  id: c._id.toString(),
  name: c.name,
  image: c.image ? imageUrl(c.image) : c.supplierImg || imageUrl(null),
});

/** A category page for one caller: products priced with their discount, filtered by a name prefix. */
const pageView = (page: CategoryPage, discount: number | null, prefix: string) => {
  const matches = (n: string) => nameKey(n).startsWith(prefix);
  return {
    category: page.category,
    subcategories: page.subcategories.filter((s) => matches(s.name)),
    products: page.products
      .filter((p) => matches(p.name))
      // The exact unit price: a per-unit product (followers, likes) costs less than a cent each,
      // and the browser multiplies it by the quantity before showing two decimals.
      .map((p) => ({ ...p, price: displayPrice(unitPrice(p.price, null, discount), 6) })),
  };
};

/** What the storefront reads: sections, category pages (priced for the caller), categories, products, images. */
export function readRoutes(api: ApiRoutes, deps: ReadDeps): void {
  const { models, reads, cache } = deps;

  api.route(
    {
      method: 'get',
      path: '/api/catalog/sections',
      summary: 'The six sections of the home page, each with its sub-categories',
      access: 'public',
      answer: z.array(
        z.object({
          name: z.string(),
          image: z.string(),
          custom_image: z
            .string()
            .nullable()
            .openapi({ description: "The picture an admin chose; null: the storefront's own artwork shows" }),
          subcategories: z.array(subcategory),
        }),
      ),
    },
    async (_req, res) => {
      res.json(await cache.get('sections', () => reads.sections()));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/catalog/category/{name}',
      summary:
        'A category or section page: its sub-categories and products, priced for the caller; search matches the start of names, ignoring case',
      access: 'public',
      query: categoryPageQuery,
      answer: z.object({
        category: z.string(),
        subcategories: z.array(subcategory),
        products: z.array(pageProduct),
      }),
    },
    async (req, res) => {
      const { search } = parseInput(categoryPageQuery, req.query);
      const name = String(req.params.name ?? '').trim();
      if (!name || name.length > 200) throw notFound('Category not found');
      // Only names that exist are cached: any other name costs a read, never a cache entry.
      let known = true;
      const page = async () => {
        const found = await cache.get<CategoryPage>(
          `page:${nameKey(name)}`,
          () => reads.page(name),
          (p) => p.known,
        );
        known = found.known;
        return found;
      };
      const discount = await discountOf(models, req.user?.id);
      const prefix = nameKey(search ?? '');
      if (discount === null && !prefix) {
        // Most reads (visitors, customers without a discount) get the finished answer from the cache.
        const json = await cache.text(
          `view:${nameKey(name)}`,
          async () => JSON.stringify(pageView(await page(), null, '')),
          () => known,
        );
        res.type('json').send(json);
        return;
      }
      res.json(pageView(await page(), discount, prefix));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/categories',
      summary: "The store's own categories (admins also see the switched-off ones)",
      access: 'public',
      answer: z.object({
        success: z.boolean(),
        categories: z.array(z.object({ id: z.string(), category_name: z.string() }).passthrough()),
      }),
    },
    async (req, res) => {
      const filter = isAdmin(req) ? {} : { available: true };
      const categories = await models.Category.find(filter).sort({ createdAt: -1 }).lean<Category[]>();
      res.json({ success: true, categories: categories.map(categoryView) });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/products',
      summary: 'Products created by admins (admins also see the switched-off ones)',
      access: 'public',
      answer: z.array(
        z.object({ id: z.string(), product_name: z.string(), price: z.number() }).passthrough(),
      ),
    },
    async (req, res) => {
      const filter = isAdmin(req) ? { removed: false } : { removed: false, available: true };
      const products = await models.Product.find(filter).sort({ createdAt: -1 }).lean<Product[]>();
      res.json(products.map(productView));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/custom-categories',
      summary: 'Supplier categories with the image the store shows for each',
      access: 'public',
      answer: z.array(z.object({ id: z.string(), name: z.string(), image: z.string() })),
    },
    async (_req, res) => {
      const list = await models.CustomCategory.find().sort({ nameKey: 1 }).lean<CustomCategory[]>();
      res.json(list.map(customCategoryView));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/custom-products',
      summary: 'The profit multiplier and image kept per supplier product name',
      access: 'admin',
      answer: z.array(z.object({ product_name: z.string(), percentage: z.number() }).passthrough()),
    },
    async (_req, res) => {
      const list = await models.CustomProduct.find().sort({ nameKey: 1 }).lean<CustomProduct[]>();
      res.json(list.map(customProductView));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/external/products',
      summary: "The supplier's products as last synced, at the supplier's price (6 decimals)",
      access: 'admin',
      answer: z.array(
        z
          .object({
            id: z.string(),
            name: z.string(),
            price: z.number(),
            category_name: z.string(),
            category_img: z.string(),
          })
          .passthrough(),
      ),
    },
    async (_req, res) => {
      const list = await models.SupplierProduct.find({ removed: false })
        .sort({ categoryKey: 1, price: 1 })
        .lean<SupplierProduct[]>();
      res.json(
        list.map((p) => ({
          id: p._id,
          name: p.name,
          price: displayPrice(p.price, 6),
          category_name: p.categoryName,
          category_img: p.categoryImg,
          params: p.params,
          qty_values: p.qtyValues,
          available: p.available && p.supplierAvailable,
        })),
      );
    },
  );

  api.route(
    { method: 'get', path: `${IMAGE_ROUTE}/{file}`, summary: 'A catalogue image', access: 'public' },
    async (req, res) => {
      const file = String(req.params.file);
      if (!/^[\w-]{1,80}\.(jpg|png|webp)$/.test(file)) throw notFound('Image not found');
      const found = await deps.images.get(`catalog/${file}`);
      if (!found) throw notFound('Image not found');
      res.setHeader('content-type', found.contentType);
      res.setHeader('content-length', String(found.size));
      // Stored images are never overwritten (each upload gets a new name), so they can be cached for good.
      res.setHeader('cache-control', 'public, max-age=31536000, immutable');
      found.body.pipe(res);
    },
  );
}
