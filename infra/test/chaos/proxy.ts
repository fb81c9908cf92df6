import net from 'node:net';
import type { Random } from './random';

export type ProxyFault =
  | { kind: 'none' }
  /** Every answer waits this long before it is passed on. */
  | { kind: 'delay'; ms: number }
  /** A request, or its answer, is cut off with this probability (the caller cannot tell which). */
  | { kind: 'drop'; probability: number };

/**
 * A TCP proxy in front of the wallet, through which orders and payments reach it: passes
 * bytes both ways, or delays or cuts off the wallet's answers while a fault is set.
 */
export class FaultyProxy {
  fault: ProxyFault = { kind: 'none' };
  /** Connections cut and answers delayed, for the run's figures. */
  readonly figures = { connections: 0, dropped: 0, delayed: 0 };
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(
    private readonly target: number,
    private readonly random: Random,
  ) {
    this.server = net.createServer((client) => this.connect(client));
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private cut(): boolean {
    if (this.fault.kind !== 'drop' || !this.random.chance(this.fault.probability)) return false;
    this.figures.dropped++;
    return true;
  }

  private connect(client: net.Socket): void {
    this.figures.connections++;
    const upstream = net.connect(this.target, '127.0.0.1');
    const pair = [client, upstream];
    const end = () => pair.forEach((s) => s.destroy());
    for (const socket of pair) {
      this.sockets.add(socket);
      socket.on('error', end);
      socket.on('close', () => {
        this.sockets.delete(socket);
        end();
      });
    }
    client.on('data', (chunk) => {
      if (this.cut()) return end();
      upstream.write(chunk);
    });
    // Answers keep their order: each waits for the one before it.
    let sending = Promise.resolve();
    upstream.on('data', (chunk) => {
      if (this.cut()) return end();
      const delay = this.fault.kind === 'delay' ? this.fault.ms : 0;
      if (delay) this.figures.delayed++;
      sending = sending.then(async () => {
        if (delay) await new Promise((r) => setTimeout(r, delay));
        if (!client.destroyed) client.write(chunk);
      });
    });
  }
}
