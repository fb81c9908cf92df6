import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  chooseInfrastructure,
  dockerAnswers,
  faultTestsMayRun,
  holdContainers,
  startContainers,
  type RunArguments,
} from './infrastructure';

/**
 * Component and system tests talk to the real infrastructure: containers when a Docker engine
 * answers (infrastructure.ts), else the local one, made sure to be running (idempotent, quick
 * when up). Jest's workers and the services the tests spawn inherit the environment set here.
 */
export default async function globalSetup(run: RunArguments): Promise<void> {
  const choosing = Date.now();
  const choice = await chooseInfrastructure(
    process.env.RASEED_TEST_INFRA,
    faultTestsMayRun(process.argv, run),
    () => dockerAnswers(),
  );
  console.log(
    `\ntest infrastructure: ${choice.infrastructure} (${choice.why}; chosen in ${Date.now() - choosing} ms)`,
  );
  if (choice.infrastructure === 'containers') {
    const starting = Date.now();
    console.log(
      'starting MongoDB, Kafka, Redis, MinIO and MailDev in containers (a first run pulls the images)',
    );
    const running = await startContainers();
    holdContainers(running);
    Object.assign(process.env, running.env);
    console.log(
      `containers up in ${Math.round((Date.now() - starting) / 1000)} s: ${running.env.MONGO_URL}, ${running.env.KAFKA_BROKERS}`,
    );
  } else {
    execFileSync('bash', [path.join(__dirname, '..', 'infra.sh'), 'up'], { stdio: 'inherit' });
  }
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  // Names this run's Kafka topics (see TEST_TOPIC_PREFIX), so the teardown can delete them.
  process.env.RASEED_TEST_RUN = randomUUID().slice(0, 8);
}
