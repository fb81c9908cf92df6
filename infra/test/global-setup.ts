import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';

/** Component and system tests talk to the real infrastructure: make sure it is running (idempotent, quick when up). */
export default function globalSetup(): void {
  execFileSync('bash', [path.join(__dirname, '..', 'infra.sh'), 'up'], { stdio: 'inherit' });
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  // Names this run's Kafka topics (see TEST_TOPIC_PREFIX), so the teardown can delete them.
  process.env.RASEED_TEST_RUN = randomUUID().slice(0, 8);
}
