import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The local store's PostgreSQL, as infra/infra.sh runs it for FerretDB (trust over loopback). */
export const PG = { host: '127.0.0.1', port: '5433', user: 'postgres', database: 'ferretdb' };

/** Connection arguments for PostgreSQL's client programs. */
export const pgArgs = ['-h', PG.host, '-p', PG.port, '-U', PG.user];

/** PostgreSQL's newest installed client programs (Debian keeps them per version). */
export function pgTool(name: string): string {
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base) ? fs.readdirSync(base).sort((a, b) => Number(a) - Number(b)) : [];
  return versions.length ? path.join(base, versions.at(-1)!, 'bin', name) : name;
}

/** Runs SQL on FerretDB's PostgreSQL database; answers the rows, one string each. */
export function sql(query: string): string[] {
  const out = execFileSync(pgTool('psql'), [...pgArgs, '-d', PG.database, '-tAq', '-c', query], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out.toString().trim().split('\n').filter(Boolean);
}
