import { api, type ListQuery } from '../../api/api';

export interface Order {
  id: string;
  user_id: string;
  username: string;
  product_id: string;
  product_name: string;
  quantity: number;
  total_price: number;
  status: string;
  params: string | null;
  replay_api: string | null;
  order_id: string | null;
  reason?: string | null;
  /** Delivered from stock: its owner reveals the codes (useRevealCodesQuery). */
  from_stock?: boolean;
  created_at: string;
}

/** A code delivered from stock, with what came with it. */
export interface DeliveredCode {
  code: string;
  serial?: string;
  pin?: string;
  expires?: string;
}

export interface OrderDraft {
  product_id: string;
  quantity: number;
  params?: string;
  /** One per submission: a retry of the same submission never orders twice. */
  idempotencyKey: string;
}

/** Placing orders and one's own orders (spec §7). */
export const orderingApi = api.injectEndpoints({
  endpoints: (build) => ({
    placeOrder: build.mutation<{ orderStatus: boolean; message: string; balance?: number }, OrderDraft>({
      query: ({ idempotencyKey, ...body }) => ({
        url: 'api/orders',
        method: 'POST',
        body,
        headers: { 'Idempotency-Key': idempotencyKey },
      }),
      invalidatesTags: ['Wallet', 'Orders'],
    }),
    revealCodes: build.query<{ codes: DeliveredCode[] }, string>({
      query: (orderId) => `api/orders/codes/${encodeURIComponent(orderId)}`,
      // A code is read only when asked for, and not kept once the order is closed.
      keepUnusedDataFor: 0,
    }),
    myOrders: build.query<{ orders: Order[]; totalPages: number }, ListQuery>({
      query: (body) => ({ url: 'api/orders/myorders', method: 'POST', body: { ...body, limit: 10 } }),
      providesTags: ['Orders'],
    }),
  }),
});

export const { usePlaceOrderMutation, useMyOrdersQuery, useLazyRevealCodesQuery } = orderingApi;
