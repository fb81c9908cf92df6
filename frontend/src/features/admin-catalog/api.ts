import { api } from '../../api/api';

/** A store category as the back office lists it (spec §3 Category). */
export interface AdminCategory {
  id: string;
  category_name: string;
  section: string;
  image: string;
  available: boolean;
  created_at: string;
}

/** A product an admin created ('c-' ids), fulfilled by hand (spec §3 Created product). */
export interface CreatedProduct {
  id: string;
  product_name: string;
  price: number;
  category_name: string;
  parent_id: string | null;
  available: boolean;
  image: string;
  params: string[];
  created_at: string;
}

/** A created product's stock of codes: counts, the newest codes masked, and the last uploads. */
export interface ProductStock {
  stock: { available: number; sold: number; expired: number };
  codes: { id: string; mask: string; state: 'available' | 'sold' | 'expired'; expires_at: string | null }[];
  batches: { id: string; by: string; added: number; duplicates: number; blank: number; at: string }[];
  settings: StockSettings;
  total: number;
}

/** When a stock counts as low (0: never told), and whether orders wait for an admin once it is out. */
export interface StockSettings {
  low_stock_threshold: number;
  manual_when_out: boolean;
}

/** What an upload of codes did. */
export interface CodesAdded {
  added: number;
  duplicates: number;
  blank: number;
}

/** A product of the external supplier at the supplier's price, 6 decimals (spec §3). */
export interface SupplierProduct {
  id: string;
  name: string;
  price: number;
  category_name: string;
  category_img: string;
}

/** The store's profit and image for one supplier product, matched by name. */
export interface CustomProduct {
  id: string;
  product_name: string;
  /** The multiplier, such as 1.1 for 10 % profit. */
  percentage: number;
  /** The same profit as a percentage with 2 decimals. */
  profit_percent: number;
  category_img: string | null;
}

/** A supplier category with the image the store shows for it. */
export interface CustomCategory {
  id: string;
  name: string;
  image: string;
}

/** A home section with the picture an admin chose for it; null while the store's own artwork shows. */
export interface HomeSection {
  name: string;
  custom_image: string | null;
}

/** What a change of a section's picture answers. */
export interface SectionPictureAnswer extends HomeSection {
  success: boolean;
  message: string;
}

// Every change here shows in the storefront: its category pages read the 'Catalog' tag too.
const CHANGED = (_result: unknown, error: unknown) => (error ? [] : ['Catalog' as const]);

/** The catalogue's back office (spec §2 Create home, Create Category/Product, Api Products/Categories). */
export const adminCatalogApi = api.injectEndpoints({
  endpoints: (build) => ({
    adminCategories: build.query<AdminCategory[], void>({
      query: () => 'api/categories',
      transformResponse: (answer: { categories: AdminCategory[] }) => answer.categories,
      providesTags: ['Catalog'],
    }),
    createdProducts: build.query<CreatedProduct[], void>({
      query: () => 'api/products',
      providesTags: ['Catalog'],
    }),
    /** A category's or a created product's switch: it moves at once, and a refusal puts it back. */
    setAvailability: build.mutation<
      { success: boolean },
      { kind: 'categories' | 'products'; id: string; available: boolean }
    >({
      query: ({ kind, id, available }) => ({
        url: `api/${kind}/${encodeURIComponent(id)}/availability`,
        method: 'PUT',
        body: { available },
      }),
      async onQueryStarted({ kind, id, available }, { dispatch, queryFulfilled }) {
        const switchOne = (items: { id: string; available: boolean }[]) => {
          const item = items.find((i) => i.id === id);
          if (item) item.available = available;
        };
        const patch = dispatch(
          kind === 'categories'
            ? adminCatalogApi.util.updateQueryData('adminCategories', undefined, switchOne)
            : adminCatalogApi.util.updateQueryData('createdProducts', undefined, switchOne),
        );
        await queryFulfilled.catch(() => patch.undo());
      },
      invalidatesTags: CHANGED,
    }),
    updateProductPrice: build.mutation<{ updateStatus: boolean }, { id: string; price: string }>({
      // The price goes as typed: the server reads its digits exactly, never through a float.
      query: ({ id, price }) => ({
        url: `api/update/product/${encodeURIComponent(id)}`,
        method: 'PUT',
        body: { price },
      }),
      invalidatesTags: CHANGED,
    }),
    deleteProduct: build.mutation<{ deleteStatus: boolean }, string>({
      query: (id) => ({ url: `api/delete/product/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: CHANGED,
    }),
    /** Multipart: categoryName, section, image. */
    createCategory: build.mutation<{ categoryStatus: boolean }, FormData>({
      query: (body) => ({ url: 'api/create/category', method: 'POST', body }),
      invalidatesTags: CHANGED,
    }),
    /** Multipart: productName, price, params, category_name, parent_id, image, fields[i][…]. */
    createProduct: build.mutation<{ productStatus: boolean }, FormData>({
      query: (body) => ({ url: 'api/create/product', method: 'POST', body }),
      invalidatesTags: CHANGED,
    }),
    productStock: build.query<ProductStock, string>({
      query: (productId) => `api/orders/stock/${encodeURIComponent(productId)}`,
      providesTags: ['Catalog'],
    }),
    /** Multipart: file (one code a line, or code,serial,pin,expiry). */
    addCodes: build.mutation<CodesAdded, { productId: string; file: Blob }>({
      query: ({ productId, file }) => {
        const body = new FormData();
        body.append('file', file, 'codes.csv');
        return { url: `api/orders/stock/${encodeURIComponent(productId)}/codes`, method: 'POST', body };
      },
      invalidatesTags: ['Catalog'],
    }),
    saveStockSettings: build.mutation<{ message: string }, { productId: string; settings: StockSettings }>({
      query: ({ productId, settings }) => ({
        url: `api/orders/stock/${encodeURIComponent(productId)}/settings`,
        method: 'PUT',
        body: settings,
      }),
      invalidatesTags: ['Catalog'],
    }),
    supplierProducts: build.query<SupplierProduct[], void>({
      query: () => 'external/products',
      providesTags: ['Catalog'],
    }),
    customProducts: build.query<CustomProduct[], void>({
      query: () => 'api/custom-products',
      providesTags: ['Catalog'],
    }),
    setProfitForAll: build.mutation<{ success: boolean }, { percentage: string }>({
      query: (body) => ({ url: 'api/edit-custom-percentage', method: 'POST', body }),
      invalidatesTags: CHANGED,
    }),
    /** Multipart: product_name, and a new percentage, a new image or both. */
    editCustomProduct: build.mutation<CustomProduct, FormData>({
      query: (body) => ({ url: 'api/edit-custom-products', method: 'PUT', body }),
      invalidatesTags: CHANGED,
    }),
    customCategories: build.query<CustomCategory[], void>({
      query: () => 'api/custom-categories',
      providesTags: ['Catalog'],
    }),
    /** Multipart: image. */
    editCustomCategory: build.mutation<CustomCategory, { id: string; body: FormData }>({
      query: ({ id, body }) => ({
        url: `api/edit-custom-categories/${encodeURIComponent(id)}`,
        method: 'PUT',
        body,
      }),
      invalidatesTags: CHANGED,
    }),
    homeSections: build.query<HomeSection[], void>({
      query: () => 'api/catalog/sections',
      providesTags: ['Catalog'],
    }),
    /** Multipart: image. */
    setSectionPicture: build.mutation<SectionPictureAnswer, { name: string; body: FormData }>({
      query: ({ name, body }) => ({
        url: `api/catalog/sections/${encodeURIComponent(name)}/image`,
        method: 'PUT',
        body,
      }),
      invalidatesTags: CHANGED,
    }),
    resetSectionPicture: build.mutation<SectionPictureAnswer, string>({
      query: (name) => ({ url: `api/catalog/sections/${encodeURIComponent(name)}/image`, method: 'DELETE' }),
      invalidatesTags: CHANGED,
    }),
  }),
});

export const {
  useHomeSectionsQuery,
  useSetSectionPictureMutation,
  useResetSectionPictureMutation,
  useProductStockQuery,
  useSaveStockSettingsMutation,
  useAddCodesMutation,
  useAdminCategoriesQuery,
  useCreatedProductsQuery,
  useSetAvailabilityMutation,
  useUpdateProductPriceMutation,
  useDeleteProductMutation,
  useCreateCategoryMutation,
  useCreateProductMutation,
  useSupplierProductsQuery,
  useCustomProductsQuery,
  useSetProfitForAllMutation,
  useEditCustomProductMutation,
  useCustomCategoriesQuery,
  useEditCustomCategoryMutation,
} = adminCatalogApi;
