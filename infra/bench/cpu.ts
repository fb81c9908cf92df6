import fs from 'node:fs';

/** Linux counts CPU time in ticks of 1/100 s (USER_HZ) in /proc. */
const TICK_SECONDS = 0.01;

/** The machine's CPU time so far (busy and all), in seconds, from /proc/stat. */
export function machineCpu(): { busy: number; total: number } {
  const fields = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  const idle = fields[3]! + (fields[4] ?? 0);
  return { busy: (total - idle) * TICK_SECONDS, total: total * TICK_SECONDS };
}

/** Under this share of the machine's CPU the store counts as idle again. */
const IDLE_SHARE = 0.15;

/** Seconds until the machine's CPU use falls under IDLE_SHARE for a whole second (at most two minutes). */
export async function untilIdle(): Promise<number> {
  const started = Date.now();
  let before = machineCpu();
  while (Date.now() - started < 120_000) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = machineCpu();
    const share = (now.busy - before.busy) / (now.total - before.total);
    before = now;
    if (share < IDLE_SHARE) return (Date.now() - started) / 1000 - 1;
  }
  return Infinity;
}

/** The bench's own process: the customers sending the load, not a part of the store. */
export const LOAD_ROLE = 'the load (this bench)';

/** The bare Node proxy the gateway's overhead is read against (bare-proxy.ts). */
export const BARE_PROXY_ROLE = 'bare proxy';

/** Which part of the store a process is, from its command line. */
function roleOf(cmdline: string, pid: number): string {
  if (pid === process.pid) return LOAD_ROLE;
  if (/bench\/bare-proxy\.ts/.test(cmdline)) return BARE_PROXY_ROLE;
  const app = /\/(gateway|services\/(\w+))\/dist\/main\.js/.exec(cmdline);
  if (app) return app[2] ?? app[1]!;
  // PostgreSQL's backends are named after their database, FerretDB's.
  if (/^postgres/.test(cmdline)) return 'store: PostgreSQL';
  if (/ferretdb/.test(cmdline)) return 'store: FerretDB';
  if (/kafka\.Kafka/.test(cmdline)) return 'Kafka';
  if (/redis-server/.test(cmdline)) return 'Redis';
  if (/minio/.test(cmdline)) return 'MinIO';
  return 'other';
}

/**
 * CPU seconds used so far by each part of the store (each service, the gateway, the store,
 * Kafka, Redis), summed over its processes, from /proc/<pid>/stat. A process that ended between
 * two readings is not counted; the store's and the services' processes live through a section.
 */
export function cpuByRole(): Map<string, number> {
  const roles = new Map<string, number>();
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) * TICK_SECONDS;
      const role = roleOf(cmdline, pid);
      roles.set(role, (roles.get(role) ?? 0) + seconds);
    } catch {
      // The process ended while being read.
    }
  }
  return roles;
}

/** The CPU seconds each part used between two readings of cpuByRole, largest first. */
export function cpuSpent(before: Map<string, number>, after: Map<string, number>): [string, number][] {
  return [...after]
    .map(([role, seconds]): [string, number] => [role, seconds - (before.get(role) ?? 0)])
    .filter(([, seconds]) => seconds > 0)
    .sort((a, b) => b[1] - a[1]);
}
