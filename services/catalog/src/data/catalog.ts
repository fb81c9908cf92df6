import { unitPrice } from '@raseed/kit';
import type {
  CatalogModels,
  Category,
  CustomCategory,
  CustomProduct,
  Product,
  SectionImage,
  SupplierProduct,
} from './models';
import { nameKey, SECTIONS } from '../domain/sections';

/** Where images are served from; stored images live under `catalog/` in the object store. */
export const IMAGE_ROUTE = '/api/catalog/images';
export const FALLBACK_IMAGE = '/images/image.png';
export const imageUrl = (key: string | null | undefined, fallback = FALLBACK_IMAGE) =>
  key ? `${IMAGE_ROUTE}/${key.replace(/^catalog\//, '')}` : fallback;

export interface PageProduct {
  id: string;
  name: string;
  /** Micro-dollars before the caller's discount (price × custom multiplier). */
  price: number;
  available: boolean;
  /** A created product whose stock of codes is sold out (and not taken by hand meanwhile). */
  out_of_stock: boolean;
  image: string;
  params: string[];
  qty_values: { min: number; max: number } | null;
}

export interface Subcategory {
  id: string;
  name: string;
  image: string;
}

/** A home section as the storefront reads it; `image` falls back to the grey picture for older clients. */
export interface SectionTile {
  name: string;
  image: string;
  custom_image: string | null;
  subcategories: Subcategory[];
}

export interface CategoryPage {
  category: string;
  subcategories: Subcategory[];
  products: PageProduct[];
  /** Whether the name is a category, a section or a supplier category at all (only those are cached). */
  known: boolean;
}

/** Reads that assemble what the storefront shows: a category page and the home's sections. */
export class CatalogReads {
  constructor(private readonly m: CatalogModels) {}

  /** A category or section page before any discount: its sub-categories and its products. */
  async page(name: string): Promise<CategoryPage> {
    const key = nameKey(name);
    const section = SECTIONS.find((s) => nameKey(s.name) === key);
    const [own, placed, supplier, created, soldOut] = await Promise.all([
      this.m.Category.findOne({ nameKey: key }).lean<Category>(),
      this.m.Category.find({ sectionKey: key, available: true }).sort({ createdAt: 1 }).lean<Category[]>(),
      // Supplier products the supplier stopped listing stay on the page, shown as unavailable.
      this.m.SupplierProduct.find({ categoryKey: key }).lean<SupplierProduct[]>(),
      this.m.Product.find({ categoryKey: key, removed: false }).sort({ createdAt: 1 }).lean<Product[]>(),
      // Few products are sold out at once: all of them, rather than a lookup per product.
      this.m.StockLevel.find({ out: true }).select({ _id: 1 }).lean<{ _id: string }[]>(),
    ]);
    const out = new Set(soldOut.map((s) => s._id));
    const known = !!(own || section || supplier.length || created.length);
    // A category an admin switched off shows nothing: its products are neither listed nor orderable.
    if (own && !own.available) return { category: own.name, subcategories: [], products: [], known };
    const customs = await this.customProducts(supplier.map((p) => p.nameKey));
    const subcategories = await this.subcategories([...(section?.subcategories ?? [])], placed);
    const fallback = own?.image ? imageUrl(own.image) : (supplier[0]?.categoryImg ?? FALLBACK_IMAGE);
    return {
      known,
      category: own?.name ?? section?.name ?? supplier[0]?.categoryName ?? name.trim(),
      subcategories,
      products: [
        ...supplier
          .sort((a, b) => a.price - b.price || a.name.localeCompare(b.name))
          .map((p) => {
            const custom = customs.get(p.nameKey);
            return {
              id: p._id,
              name: p.name,
              price: unitPrice(p.price, custom?.percentage ?? null, null),
              available: p.available && p.supplierAvailable,
              out_of_stock: false,
              image: custom?.image ? imageUrl(custom.image) : p.categoryImg || fallback,
              params: p.params,
              qty_values:
                p.qtyValues?.min != null && p.qtyValues.max != null
                  ? { min: p.qtyValues.min, max: p.qtyValues.max }
                  : null,
            };
          }),
        ...created.map((p) => ({
          id: p._id,
          name: p.name,
          price: unitPrice(p.price, customs.get(p.nameKey)?.percentage ?? null, null),
          available: p.available,
          out_of_stock: out.has(p._id),
          image: imageUrl(p.image, fallback),
          params: p.params,
          qty_values: null,
        })),
      ],
    };
  }

  /**
   * The six sections, each with its sub-categories (the fixed names, then the categories placed in it)
   * and the picture an admin chose for it (`custom_image`): the section's own, else that of a
   * category named like it; null when the storefront shows its own artwork.
   */
  async sections(): Promise<SectionTile[]> {
    const keys = SECTIONS.map((s) => nameKey(s.name));
    const [categories, tiles, chosen] = await Promise.all([
      this.m.Category.find({ available: true }).sort({ createdAt: 1 }).lean<Category[]>(),
      this.m.Category.find({ nameKey: { $in: keys } }).lean<Category[]>(),
      this.m.SectionImage.find({ _id: { $in: keys } }).lean<SectionImage[]>(),
    ]);
    return Promise.all(
      SECTIONS.map(async (s) => {
        const key = nameKey(s.name);
        const picture =
          chosen.find((c) => c._id === key)?.image ?? tiles.find((t) => t.nameKey === key)?.image;
        return {
          name: s.name,
          image: imageUrl(picture),
          custom_image: picture ? imageUrl(picture) : null,
          subcategories: await this.subcategories(
            [...s.subcategories],
            categories.filter((c) => c.sectionKey === key),
          ),
        };
      }),
    );
  }

  private async customProducts(keys: string[]): Promise<Map<string, CustomProduct>> {
    if (!keys.length) return new Map();
    const found = await this.m.CustomProduct.find({ nameKey: { $in: [...new Set(keys)] } }).lean<
      CustomProduct[]
    >();
    return new Map(found.map((c) => [c.nameKey, c]));
  }

  /** Fixed names first (with the image an admin or the supplier gave them), then admin categories; one per name. */
  private async subcategories(fixed: string[], placed: Category[]): Promise<Subcategory[]> {
    const keys = fixed.map(nameKey);
    const [customs, own] = keys.length
      ? await Promise.all([
          this.m.CustomCategory.find({ nameKey: { $in: keys } }).lean<CustomCategory[]>(),
          this.m.Category.find({ nameKey: { $in: keys } }).lean<Category[]>(),
        ])
      : [[], []];
    const list: Subcategory[] = [];
    const seen = new Set<string>();
    for (const name of fixed) {
      const key = nameKey(name);
      const mine = own.find((c) => c.nameKey === key);
      if (mine && !mine.available) continue;
      const custom = customs.find((c) => c.nameKey === key);
      seen.add(key);
      list.push({
        id: custom?._id.toString() ?? mine?._id.toString() ?? key,
        name,
        image: custom?.image
          ? imageUrl(custom.image)
          : mine?.image
            ? imageUrl(mine.image)
            : custom?.supplierImg || FALLBACK_IMAGE,
      });
    }
    for (const c of placed) {
      if (seen.has(c.nameKey)) continue;
      seen.add(c.nameKey);
      list.push({ id: c._id.toString(), name: c.name, image: imageUrl(c.image) });
    }
    return list;
  }
}
