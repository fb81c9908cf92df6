/**
 * The floor under the gateway's overhead figure: Node's own HTTP server and client passing
 * each request to one upstream over kept-alive connections, with nothing read, checked, logged
 * or added. The bench runs it in a process of its own (startBareProxy in index.ts):
 * `node --import tsx infra/bench/bare-proxy.ts UPSTREAM_ORIGIN`; it tells its parent its port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const target = new URL(process.argv[2] ?? '');
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
  const forwarded = http.request(
    {
      host: target.hostname,
      port: target.port,
      path: req.url,
      method: req.method,
      headers: req.headers,
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forwarded.on('error', () => res.destroy());
  req.pipe(forwarded);
});
server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
