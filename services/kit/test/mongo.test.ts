import { connectMongo } from '@raseed/kit';
import { MONGO_URL, uniqueName } from '@raseed/kit/testing';
import type { Connection } from 'mongoose';

/**
 * The store's client against a connection that the store closes under it (as it does to every
 * connection when it stops). Node destroys such a socket a loop turn before it emits 'close';
 * a command written in between got neither 'drain' nor 'error' from the socket and waited
 * forever. When that command was the monitor's heartbeat, the client never learned that the
 * store was back, and every later command failed server selection (infra/patches, mongodb).
 * The monitor is the driver's own (not public API): this reaches it to write in that window.
 */
interface Monitor {
  connection: { socket: { destroy(): void } } | null;
  requestCheck(): void;
}
interface Topology {
  s: { servers: Map<string, { monitor: Monitor }> };
}

let conn: Connection;

beforeAll(async () => {
  conn = await connectMongo(MONGO_URL, uniqueName('raseed_kit_mongo_test_'));
});
afterAll(async () => {
  await conn.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The next heartbeat that ends (succeeded or failed), or 'none' if none ends within `ms`. */
function nextHeartbeat(ms: number): Promise<string> {
  const client = conn.getClient();
  return new Promise((resolve) => {
    const done = (outcome: string) => () => {
      client.off('serverHeartbeatSucceeded', succeeded).off('serverHeartbeatFailed', failed);
      clearTimeout(timer);
      resolve(outcome);
    };
    const succeeded = done('succeeded');
    const failed = done('failed');
    const timer = setTimeout(done('none'), ms);
    client.on('serverHeartbeatSucceeded', succeeded).on('serverHeartbeatFailed', failed);
  });
}

describe('the store client', () => {
  it('keeps checking the store after its monitor connection is closed under a heartbeat', async () => {
    const topology = (conn.getClient() as unknown as { topology: Topology }).topology;
    const [server] = [...topology.s.servers.values()];
    const { monitor } = server!;
    // The first check opened the monitor's connection; past the minimum spacing, a check runs at once.
    for (let i = 0; i < 50 && !monitor.connection; i++) await pause(100);
    expect(monitor.connection).not.toBeNull();
    await pause(600);

    const heartbeat = nextHeartbeat(5_000);
    monitor.connection!.socket.destroy();
    monitor.requestCheck();
    // The heartbeat written to the destroyed socket ends (it fails), rather than never.
    expect(await heartbeat).toBe('failed');
    // And the monitor goes on: its next check reaches the store.
    expect(await nextHeartbeat(30_000)).toBe('succeeded');
    await expect(conn.db!.command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
  });
});
