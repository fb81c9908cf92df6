import { loadConfig, serviceUrls } from '@raseed/kit';
import { z } from 'zod';

export function loadPaymentsConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    {
      PORT: z.coerce.number().int().min(0).default(4005),
      MONGO_DB: z.string().default('raseed_payments'),
      WALLET_URL: serviceUrls('http://127.0.0.1:4002'),
      /** The largest single payment in dollars, a top-up or an admin's credit or withdrawal. */
      MAX_PAYMENT_AMOUNT: z.coerce.number().positive().default(10_000),
      /** Where customers send their transfers (shown on the Add Credit page). */
      WHISH_PHONE: z.string().min(1).default('+961 70 000 000'),
      BINANCE_TRC20_ADDRESS: z.string().min(1).default('TRC20-address-not-configured'),
      BINANCE_BEP20_ADDRESS: z.string().min(1).default('BEP20-address-not-configured'),
      BINANCE_PAY_ID: z.string().min(1).default('000000000'),
    },
    env,
  );
}

export type PaymentsConfig = ReturnType<typeof loadPaymentsConfig>;
