import { api } from '../../api/api';

export interface Transaction {
  id: string;
  amount: number;
  type: string;
  status: string;
  created_at: string;
  product_name: string;
}

/** The wallet: balance, debt and transactions (spec §7). */
export const walletApi = api.injectEndpoints({
  endpoints: (build) => ({
    balance: build.query<{ balance: number }, string>({
      query: (userId) => ({ url: 'api/balance', params: { user_id: userId } }),
      providesTags: ['Wallet'],
    }),
    debt: build.query<{ debt: number }, string>({
      query: (userId) => ({ url: 'api/debt', params: { user_id: userId } }),
      providesTags: ['Wallet'],
    }),
    transactions: build.query<
      { success: boolean; transactions: Transaction[]; totalPages?: number },
      { userId: string; page: number }
    >({
      query: ({ userId, page }) => ({
        url: `api/profile/${encodeURIComponent(userId)}`,
        params: { page, limit: 10 },
      }),
      providesTags: ['Wallet'],
    }),
  }),
});

export const { useBalanceQuery, useDebtQuery, useTransactionsQuery } = walletApi;
