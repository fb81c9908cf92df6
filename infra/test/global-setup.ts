import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Component and system tests talk to the real infrastructure: make sure it is running (idempotent, quick when up). */
export default function globalSetup(): void {
  execFileSync('bash', [path.join(__dirname, '..', 'infra.sh'), 'up'], { stdio: 'inherit' });
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
}
