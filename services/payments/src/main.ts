import { runMain } from '@raseed/kit';
import { loadPaymentsConfig } from './config';
import { startPayments } from './service';

runMain(() => startPayments(loadPaymentsConfig()));
