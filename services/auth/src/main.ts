import { runMain } from '@raseed/kit';
import { loadAuthConfig } from './config';
import { startAuth } from './service';

runMain(() => startAuth(loadAuthConfig()));
