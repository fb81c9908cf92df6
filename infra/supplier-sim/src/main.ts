import { z } from 'zod';
import { DEFAULT_SUPPLIER_TOKEN, startSupplierSim } from './index';

const env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(4100),
    HOST: z.string().min(1).default('127.0.0.1'),
    SUPPLIER_TOKEN: z.string().min(1).default(DEFAULT_SUPPLIER_TOKEN),
    SIM_PRODUCTS: z.coerce.number().int().min(1).max(100_000).optional(),
    LOG_LEVEL: z.string().default('info'),
  })
  .parse(process.env);

startSupplierSim({
  port: env.PORT,
  host: env.HOST,
  token: env.SUPPLIER_TOKEN,
  products: env.SIM_PRODUCTS,
  logLevel: env.LOG_LEVEL,
}).then(
  (sim) => {
    const stop = () => void sim.stop().then(() => process.exit(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
