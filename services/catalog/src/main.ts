import { runMain } from '@raseed/kit';
import { loadCatalogConfig } from './config';
import { startCatalog } from './service';

runMain(() => startCatalog(loadCatalogConfig()));
