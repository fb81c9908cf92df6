import { api } from '../../api/api';

export interface SubCategory {
  id: string;
  name: string;
  image: string;
}

export interface Section {
  name: string;
  image: string;
  /** The picture an admin chose for the section; null while the store's own artwork shows. */
  custom_image: string | null;
  subcategories: SubCategory[];
}

export interface Product {
  id: string;
  name: string;
  /** This user's price: the multiplier and any discount applied by the server. */
  price: number;
  available: boolean;
  /** Sold out: shown dimmed until codes come in (older catalogues leave it out). */
  out_of_stock?: boolean;
  image: string;
  params: string[];
  qty_values: { min: number; max: number } | null;
}

export interface CategoryPage {
  category: string;
  subcategories: SubCategory[];
  products: Product[];
}

/** The store's catalogue, priced for the caller (spec §2 Home and Category page). */
export const catalogApi = api.injectEndpoints({
  endpoints: (build) => ({
    sections: build.query<Section[], void>({
      query: () => 'api/catalog/sections',
      providesTags: ['Catalog'],
    }),
    categoryPage: build.query<CategoryPage, { name: string; search: string; userId?: string }>({
      // The user id only keys the cache: the price is per user, read from the session cookie.
      query: ({ name, search }) => ({
        url: `api/catalog/category/${encodeURIComponent(name)}`,
        params: search ? { search } : undefined,
      }),
      providesTags: ['Catalog'],
    }),
  }),
});

export const { useSectionsQuery, useCategoryPageQuery } = catalogApi;
