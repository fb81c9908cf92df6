/**
 * A process's first import (see `instrument` in tracing.ts): HTTP, Express, the store driver
 * and Redis are traced only if they are patched before anything loads them.
 */
import { instrument } from './tracing';

instrument();
