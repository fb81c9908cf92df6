import { api, type ListQuery } from '../../api/api';

export interface PaymentMethod {
  name: string;
  /** The share of the amount the customer sends: Whish-Money keeps a 1% fee. */
  sharePercent: number;
  destinations: { label: string; value: string }[];
}

export interface Payment {
  id: string;
  user_id: string;
  username: string;
  product_name: string;
  amount: number;
  amount_to_send: number | null;
  type: string;
  status: string;
  image_path: string | null;
  created_at: string;
}

/** Add Credit and one's own payments (spec §7). */
export const paymentsApi = api.injectEndpoints({
  endpoints: (build) => ({
    paymentMethods: build.query<{ methods: PaymentMethod[] }, void>({
      query: () => 'api/payments/methods',
    }),
    submitTopUp: build.mutation<
      { paymentStatus: boolean; message: string },
      { form: FormData; idempotencyKey: string }
    >({
      query: ({ form, idempotencyKey }) => ({
        url: 'api/payments',
        method: 'POST',
        body: form,
        headers: { 'Idempotency-Key': idempotencyKey },
      }),
      invalidatesTags: ['Payments'],
    }),
    myPayments: build.query<{ payments: Payment[]; totalPages: number }, ListQuery>({
      query: (body) => ({ url: 'api/payments/mypayments', method: 'POST', body: { ...body, limit: 10 } }),
      providesTags: ['Payments'],
    }),
  }),
});

export const { usePaymentMethodsQuery, useSubmitTopUpMutation, useMyPaymentsQuery } = paymentsApi;
