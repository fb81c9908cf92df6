// Tracing patches HTTP, Express, the store driver and Redis before anything loads them.
import '@raseed/kit/dist/instrument';
import { runMain } from '@raseed/kit';
import { loadCatalogConfig } from './config';
import { startCatalog } from './service';

runMain(() => startCatalog(loadCatalogConfig()));
