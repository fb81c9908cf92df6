// Tracing patches HTTP, Express, the store driver and Redis before anything loads them.
import '@raseed/kit/dist/instrument';
import { runMain } from '@raseed/kit';
import { loadOrdersConfig } from './config';
import { startOrders } from './service';

runMain(() => startOrders(loadOrdersConfig()));
