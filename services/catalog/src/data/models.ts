import { carriesEvents, modelOf } from '@raseed/kit';
import { Schema, type Connection, type Types } from 'mongoose';

/**
 * The catalogue's documents. Names are kept twice: as written, and as a key without
 * case or surrounding spaces (`nameKey`, `categoryKey`), the form every lookup uses.
 */
const categorySchema = new Schema(
  {
    name: { type: String, required: true },
    nameKey: { type: String, required: true, unique: true },
    section: { type: String, required: true },
    sectionKey: { type: String, required: true, index: true },
    image: { type: String, default: null },
    available: { type: Boolean, default: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);

const qtyValues = new Schema({ min: Number, max: Number }, { _id: false });
const field = new Schema({ name: String, type: String, value: String }, { _id: false });

/** A product an admin created ('c-' ids), fulfilled by hand. */
const productSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    nameKey: { type: String, required: true },
    price: { type: Number, required: true },
    categoryName: { type: String, required: true },
    categoryKey: { type: String, required: true, index: true },
    parentId: { type: String, default: null },
    image: { type: String, default: null },
    params: { type: [String], default: [] },
    fields: { type: [field], default: [] },
    available: { type: Boolean, default: true },
    /** Deleted by an admin: kept so its catalog.product-changed event still goes out. */
    removed: { type: Boolean, default: false },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
productSchema.plugin(carriesEvents);

/** The synced copy of a supplier product ('p-' ids); `available` is the admin's switch, `supplierAvailable` the supplier's. */
const supplierProductSchema = new Schema(
  {
    _id: { type: String, required: true },
    supplierId: { type: String, required: true },
    name: { type: String, required: true },
    nameKey: { type: String, required: true, index: true },
    price: { type: Number, required: true },
    categoryName: { type: String, required: true },
    categoryKey: { type: String, required: true, index: true },
    categoryImg: { type: String, default: '' },
    params: { type: [String], default: [] },
    qtyValues: { type: qtyValues, default: null },
    supplierAvailable: { type: Boolean, default: true },
    available: { type: Boolean, default: true },
    removed: { type: Boolean, default: false },
    syncedAt: { type: Date, required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);

/** The profit on supplier products of one name (spec §3: a multiplier such as 1.10), and their image. */
const customProductSchema = new Schema(
  {
    name: { type: String, required: true },
    nameKey: { type: String, required: true, unique: true },
    percentage: { type: Number, default: 1 },
    image: { type: String, default: null },
  },
  { timestamps: true, versionKey: false },
);

/** A supplier category's name with the image the store shows for it: an admin's, else the supplier's. */
const customCategorySchema = new Schema(
  {
    name: { type: String, required: true },
    nameKey: { type: String, required: true, unique: true },
    image: { type: String, default: null },
    supplierImg: { type: String, default: '' },
  },
  { timestamps: true, versionKey: false },
);

/** The picture an admin chose for one of the six home sections; without one the store's own artwork shows. */
const sectionImageSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    image: { type: String, required: true },
  },
  { timestamps: true, versionKey: false },
);

/** Each user's discount, from user.discount-changed (the newest by setAt wins). */
const discountSchema = new Schema(
  {
    _id: { type: String, required: true },
    percentage: { type: Number, default: null },
    setAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/**
 * A created product's stock of codes, from stock.level-changed (the newest count wins): `out`
 * when none is left and its admin does not take its orders by hand meanwhile.
 */
const stockLevelSchema = new Schema(
  {
    _id: { type: String, required: true },
    available: { type: Number, required: true },
    out: { type: Boolean, required: true },
    countedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
stockLevelSchema.index({ out: 1 });

export interface StockLevel {
  _id: string;
  available: number;
  out: boolean;
  countedAt: Date;
}

export interface Category {
  _id: Types.ObjectId;
  name: string;
  nameKey: string;
  section: string;
  sectionKey: string;
  image: string | null;
  available: boolean;
  createdAt: Date;
}

export interface ProductField {
  name: string;
  type: 'TEXT' | 'NUMBER';
  value: string;
}

export interface Product {
  _id: string;
  name: string;
  nameKey: string;
  /** Micro-dollars. */
  price: number;
  categoryName: string;
  categoryKey: string;
  parentId: string | null;
  image: string | null;
  params: string[];
  fields: ProductField[];
  available: boolean;
  removed: boolean;
  createdAt: Date;
}

export interface SupplierProduct {
  _id: string;
  supplierId: string;
  name: string;
  nameKey: string;
  /** Micro-dollars, the supplier's price. */
  price: number;
  categoryName: string;
  categoryKey: string;
  categoryImg: string;
  params: string[];
  qtyValues: { min: number; max: number } | null;
  supplierAvailable: boolean;
  available: boolean;
  removed: boolean;
  syncedAt: Date;
  createdAt: Date;
}

export interface CustomProduct {
  _id: Types.ObjectId;
  name: string;
  nameKey: string;
  /** The profit multiplier, e.g. 1.1 for 10 %. */
  percentage: number;
  image: string | null;
}

export interface CustomCategory {
  _id: Types.ObjectId;
  name: string;
  nameKey: string;
  image: string | null;
  supplierImg: string;
}

export interface SectionImage {
  /** The section's name key (see nameKey). */
  _id: string;
  name: string;
  image: string;
}

export interface Discount {
  _id: string;
  percentage: number | null;
  setAt: Date;
}

export function catalogModels(conn: Connection) {
  return {
    Category: modelOf<Category>(conn, 'Category', categorySchema, 'categories'),
    Product: modelOf<Product>(conn, 'Product', productSchema, 'products'),
    SupplierProduct: modelOf<SupplierProduct>(
      conn,
      'SupplierProduct',
      supplierProductSchema,
      'supplier_products',
    ),
    CustomProduct: modelOf<CustomProduct>(conn, 'CustomProduct', customProductSchema, 'custom_products'),
    CustomCategory: modelOf<CustomCategory>(
      conn,
      'CustomCategory',
      customCategorySchema,
      'custom_categories',
    ),
    SectionImage: modelOf<SectionImage>(conn, 'SectionImage', sectionImageSchema, 'section_images'),
    Discount: modelOf<Discount>(conn, 'Discount', discountSchema, 'discounts'),
    StockLevel: modelOf<StockLevel>(conn, 'StockLevel', stockLevelSchema, 'stock_levels'),
  };
}

export type CatalogModels = ReturnType<typeof catalogModels>;
