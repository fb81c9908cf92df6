// Tracing patches HTTP, Express, the store driver and Redis before anything loads them.
import '@raseed/kit/dist/instrument';
import { runMain } from '@raseed/kit';
import { loadWalletConfig } from './config';
import { startWallet } from './service';

runMain(() => startWallet(loadWalletConfig()));
