import { api } from '../../api/api';

interface Status {
  message?: string;
}

export interface UserDetails {
  username: string;
  email: string;
  phone: string;
  role: string;
}

/** Whether the signed-in user gets e-mails about their top-ups and orders. */
export interface EmailPreference {
  success: boolean;
  email_notifications: boolean;
}

/** Sign-up, sign-in, logout, password reset and the account itself (spec §7). */
export const authApi = api.injectEndpoints({
  endpoints: (build) => ({
    signUp: build.mutation<Status, { username: string; email: string; phone: string; password: string }>({
      query: (body) => ({ url: 'api/signup', method: 'POST', body }),
    }),
    signIn: build.mutation<Status & { token: string }, { email: string; password: string }>({
      query: (body) => ({ url: 'api/signin', method: 'POST', body }),
    }),
    logout: build.mutation<Status, void>({
      query: () => ({ url: 'api/logout', method: 'POST' }),
    }),
    requestReset: build.mutation<Status, { email: string }>({
      query: (body) => ({ url: 'api/reset-password-request', method: 'POST', body }),
    }),
    resetPassword: build.mutation<Status, { token: string; newPassword: string }>({
      query: ({ token, newPassword }) => ({
        url: `api/reset-password/${encodeURIComponent(token)}`,
        method: 'POST',
        body: { newPassword },
      }),
    }),
    user: build.query<{ user: UserDetails }, string>({
      query: (id) => `api/users/${encodeURIComponent(id)}`,
      providesTags: ['User'],
    }),
    discount: build.query<{ success: boolean; percentage: number | null }, string>({
      query: (id) => `api/userdiscount/${encodeURIComponent(id)}`,
      providesTags: ['User'],
    }),
    deleteUser: build.mutation<Status, string>({
      query: (id) => ({ url: `api/users/${encodeURIComponent(id)}`, method: 'DELETE' }),
    }),
    emailPreference: build.query<EmailPreference, void>({
      query: () => 'api/users/me/emails',
    }),
    setEmailPreference: build.mutation<EmailPreference, boolean>({
      query: (on) => ({ url: 'api/users/me/emails', method: 'PUT', body: { email_notifications: on } }),
      // The saved answer is what the profile shows from now on.
      async onQueryStarted(_on, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: undefined }));
        if (data) dispatch(authApi.util.upsertQueryData('emailPreference', undefined, data));
      },
    }),
  }),
});

export const {
  useSignUpMutation,
  useSignInMutation,
  useLogoutMutation,
  useRequestResetMutation,
  useResetPasswordMutation,
  useUserQuery,
  useDiscountQuery,
  useDeleteUserMutation,
  useEmailPreferenceQuery,
  useSetEmailPreferenceMutation,
} = authApi;
