import { runMain } from '@raseed/kit';
import { loadOrdersConfig } from './config';
import { startOrders } from './service';

runMain(() => startOrders(loadOrdersConfig()));
