import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Schemas may carry OpenAPI notes (`.openapi({...})`); the kit's index loads this first.
extendZodWithOpenApi(z);

export { z };
