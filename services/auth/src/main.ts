// Tracing patches HTTP, Express, the store driver and Redis before anything loads them.
import '@raseed/kit/dist/instrument';
import { runMain } from '@raseed/kit';
import { loadAuthConfig } from './config';
import { startAuth } from './service';

runMain(() => startAuth(loadAuthConfig()));
