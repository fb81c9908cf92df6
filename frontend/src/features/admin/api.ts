import { api } from '../../api/api';
import type { Order } from '../ordering/api';
import type { Payment } from '../payments/api';

export interface AdminUser {
  id: string;
  username: string;
  email: string;
  phone: string;
  role: string;
  created_at: string;
  percentage: number | null;
  percentage_set_at: string | null;
  debt: number;
  sales: number;
  lastsales: number;
}

export interface AdminListQuery {
  page: number;
  from?: string;
  to?: string;
}

// What no event tells of (disputes, stuck orders, the users' count) is asked again every 10 s.
export const ADMIN_POLL_MS = 10_000;

/** The back office's reads and decisions (spec §7). */
export const adminApi = api.injectEndpoints({
  endpoints: (build) => ({
    orderStats: build.query<{ totalOrders: number; waitingOrders: number }, void>({
      query: () => 'api/orders/stats',
      providesTags: ['Orders'],
    }),
    paymentStats: build.query<
      {
        totalPayments: number;
        waitingPayments: number;
        totalSales: number;
        weeklySales: number;
        monthlySales: number;
      },
      void
    >({
      query: () => 'api/payments/stats',
      providesTags: ['Payments'],
    }),
    userCount: build.query<{ count: number }, void>({
      query: () => 'api/users/count',
      providesTags: ['User'],
    }),
    orders: build.query<{ orders: Order[]; totalPages: number }, AdminListQuery & { status?: string }>({
      query: (params) => ({ url: 'api/orders', params: { ...params, limit: 10 } }),
      providesTags: ['Orders'],
    }),
    decideOrder: build.mutation<
      { success: boolean; message: string },
      { orderId: string; action: 'confirmed' | 'rejected'; replay?: string }
    >({
      query: (body) => ({ url: 'api/orders/action', method: 'POST', body }),
      invalidatesTags: ['Orders', 'Wallet'],
    }),
    payments: build.query<{ payments: Payment[]; totalPages: number }, AdminListQuery>({
      query: (params) => ({ url: 'api/payments', params: { ...params, limit: 10 } }),
      providesTags: ['Payments'],
    }),
    waitingPayments: build.query<{ payments: Payment[]; totalPages: number }, AdminListQuery>({
      query: (params) => ({ url: 'api/waiting-payments', params: { ...params, limit: 10 } }),
      providesTags: ['Payments'],
    }),
    decidePayment: build.mutation<
      { success: boolean; color: string; message: string },
      { id: string; action: 'confirmed' | 'rejected' }
    >({
      query: ({ id, action }) => ({
        url: `api/payments/${encodeURIComponent(id)}/update-status`,
        method: 'PUT',
        body: { action },
      }),
      invalidatesTags: ['Payments', 'Wallet'],
    }),
    users: build.query<{ users: AdminUser[]; totalPages: number }, { page: number }>({
      query: ({ page }) => ({ url: 'api/users', params: { page, limit: 10 } }),
      providesTags: ['User'],
    }),
    searchUsers: build.query<{ users: AdminUser[]; totalPages: number }, { query: string; page: number }>({
      query: ({ query, page }) => ({ url: 'api/users/search', params: { query, page, limit: 10 } }),
      // The answer is the spec's list; how many pages match comes in a header.
      transformResponse: (users: AdminUser[], meta) => ({
        users,
        totalPages: Number(meta?.response?.headers.get('X-Total-Pages') ?? 1) || 1,
      }),
      providesTags: ['User'],
    }),
    adminPayment: build.mutation<
      { paymentStatus: boolean; message: string },
      { user_id: string; amount: number; type: 'IN' | 'OUT'; idempotencyKey: string }
    >({
      query: ({ idempotencyKey, ...body }) => ({
        url: 'api/payments',
        method: 'POST',
        body: { ...body, product_name: 'Payment', status: 'confirmed', image: null },
        headers: { 'Idempotency-Key': idempotencyKey },
      }),
      invalidatesTags: ['User', 'Wallet', 'Payments'],
    }),
    debtPayment: build.mutation<
      { paymentStatus: boolean; message: string },
      { user_id: string; amount: number; idempotencyKey: string }
    >({
      query: ({ idempotencyKey, ...body }) => ({
        url: 'api/debtpayment',
        method: 'POST',
        body: { ...body, type: 'IN', product_name: 'Payment', status: 'confirmed', image: null },
        headers: { 'Idempotency-Key': idempotencyKey },
      }),
      invalidatesTags: ['User', 'Wallet', 'Payments'],
    }),
    // A user's balance and the wallet's own debt, read when a money modal opens (the users list's
    // debt is a copy that may lag, and it has no balance).
    userBalance: build.query<{ balance: number }, string>({
      query: (userId) => ({ url: 'api/balance', params: { user_id: userId } }),
      providesTags: ['Wallet'],
    }),
    userDebt: build.query<{ debt: number }, string>({
      query: (userId) => ({ url: 'api/debt', params: { user_id: userId } }),
      providesTags: ['Wallet'],
    }),
    editDebt: build.mutation<
      { debtStatus: boolean; message: string },
      { user_id: string; newdebt: number; expected_debt: number; idempotencyKey: string }
    >({
      query: ({ idempotencyKey, ...body }) => ({
        url: 'api/editdebt',
        method: 'POST',
        body,
        headers: { 'Idempotency-Key': idempotencyKey },
      }),
      invalidatesTags: ['User', 'Wallet'],
    }),
    setDiscount: build.mutation<{ success: boolean }, { user_id: string; percentage: number | null }>({
      query: (body) => ({ url: 'api/discount', method: 'POST', body }),
      invalidatesTags: ['User', 'Catalog'],
    }),
    createAdmin: build.mutation<
      { success: boolean; message: string },
      { username: string; email: string; phone: string; password: string }
    >({
      query: (body) => ({ url: 'api/create-admin', method: 'POST', body }),
      invalidatesTags: ['User'],
    }),
  }),
});

export const {
  useOrderStatsQuery,
  usePaymentStatsQuery,
  useUserCountQuery,
  useOrdersQuery,
  useDecideOrderMutation,
  usePaymentsQuery,
  useWaitingPaymentsQuery,
  useDecidePaymentMutation,
  useUsersQuery,
  useSearchUsersQuery,
  useAdminPaymentMutation,
  useDebtPaymentMutation,
  useUserBalanceQuery,
  useUserDebtQuery,
  useEditDebtMutation,
  useSetDiscountMutation,
  useCreateAdminMutation,
} = adminApi;
