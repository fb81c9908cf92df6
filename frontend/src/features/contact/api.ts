import { api } from '../../api/api';

export interface ContactMessage {
  email: string;
  phone?: string;
  subject: string;
  message: string;
}

export const contactApi = api.injectEndpoints({
  endpoints: (build) => ({
    sendContact: build.mutation<{ success: boolean; message: string }, ContactMessage>({
      query: (body) => ({ url: 'api/contact', method: 'POST', body }),
    }),
  }),
});

export const { useSendContactMutation } = contactApi;
