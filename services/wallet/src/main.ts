import { runMain } from '@raseed/kit';
import { loadWalletConfig } from './config';
import { startWallet } from './service';

runMain(() => startWallet(loadWalletConfig()));
