import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts a test's server on a free loopback port; answers its URL. */
export const listen = (server: http.Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
