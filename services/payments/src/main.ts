// Tracing patches HTTP, Express, the store driver and Redis before anything loads them.
import '@raseed/kit/dist/instrument';
import { runMain } from '@raseed/kit';
import { loadPaymentsConfig } from './config';
import { startPayments } from './service';

runMain(() => startPayments(loadPaymentsConfig()));
