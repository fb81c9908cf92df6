import { api } from '../../api/api';
import type { Order } from '../ordering/api';
import type { AdminListQuery } from './api';

export type DisputeAction = 'deliver' | 'refund' | 'write-off';

/** What the supplier said against our decision on an order (GET /api/orders/disputed). */
export interface Dispute {
  kind: 'completed-after-refund' | 'rejected-after-ok';
  supplier_reply: string | null;
  supplier_order_id: string;
  at: string;
  actions: DisputeAction[];
}

export type DisputedOrder = Order & { disputed: true; dispute: Dispute };

type Page<T> = { orders: T[]; total: number; totalPages: number };

/**
 * The back office's lists of supplier orders that need a person: disputed (the supplier
 * contradicted our decision) and stuck (waiting at the supplier for too long), and their
 * actions, each sent with an Idempotency-Key so a retry acts once.
 */
export const disputesApi = api.injectEndpoints({
  endpoints: (build) => ({
    disputedOrders: build.query<Page<DisputedOrder>, AdminListQuery>({
      query: (params) => ({ url: 'api/orders/disputed', params: { ...params, limit: 10 } }),
      providesTags: ['Orders'],
    }),
    resolveDispute: build.mutation<
      { success: boolean; message: string },
      { orderId: string; action: DisputeAction; idempotencyKey: string }
    >({
      query: ({ orderId, idempotencyKey, ...body }) => ({
        url: `api/orders/disputed/${encodeURIComponent(orderId)}/resolve`,
        method: 'POST',
        body,
        headers: { 'Idempotency-Key': idempotencyKey },
      }),
      invalidatesTags: ['Orders', 'Wallet'],
    }),
    stuckOrders: build.query<Page<Order>, AdminListQuery>({
      query: (params) => ({ url: 'api/orders/stuck', params: { ...params, limit: 10 } }),
      providesTags: ['Orders'],
    }),
    decideStuckOrder: build.mutation<
      { success: boolean; message: string },
      { orderId: string; action: 'confirmed' | 'rejected'; replay?: string; idempotencyKey: string }
    >({
      query: ({ orderId, idempotencyKey, ...body }) => ({
        url: `api/orders/stuck/${encodeURIComponent(orderId)}`,
        method: 'POST',
        body,
        headers: { 'Idempotency-Key': idempotencyKey },
      }),
      invalidatesTags: ['Orders', 'Wallet'],
    }),
  }),
});

export const {
  useDisputedOrdersQuery,
  useResolveDisputeMutation,
  useStuckOrdersQuery,
  useDecideStuckOrderMutation,
} = disputesApi;
