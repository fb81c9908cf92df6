import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { simApp } from './app';
import { SEEDED_SIZE } from './catalogue';
import { SimSupplier } from './supplier';

export { SECTIONS, SEEDED_SIZE, type SimProduct } from './catalogue';
export { SimSupplier, type SimOrder } from './supplier';

export const DEFAULT_SUPPLIER_TOKEN = 'raseed-local-supplier-token';

export interface SupplierSimOptions {
  /** 0 picks a free port. */
  port?: number;
  /** The address to listen on (loopback unless told). */
  host?: string;
  token?: string;
  /** The size of a generated catalogue, instead of the seeded one. */
  products?: number;
  /** pino's level; quiet unless asked. */
  logLevel?: string;
}

export interface RunningSupplierSim {
  url: string;
  /** The simulator's state, steered directly in-process (the /sim routes do the same over HTTP). */
  control: SimSupplier;
  stop(): Promise<void>;
}

export async function startSupplierSim(options: SupplierSimOptions = {}): Promise<RunningSupplierSim> {
  const logger = pino({ name: 'supplier-sim', level: options.logLevel ?? 'silent' });
  const control = new SimSupplier(options.products ?? SEEDED_SIZE);
  const server = createServer(simApp(control, options.token ?? DEFAULT_SUPPLIER_TOKEN, logger));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  logger.info({ url, products: control.products.length }, 'supplier simulator listening');
  return {
    url,
    control,
    stop: () =>
      new Promise((resolve) => {
        // Calls held open by the timeout scenario would otherwise keep the server up.
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
