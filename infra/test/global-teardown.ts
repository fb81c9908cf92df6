import { deleteTopics } from '../../services/kit/testing';
import { heldContainers } from './infrastructure';

/**
 * Deletes the Kafka topics this run's test files made, so test topics do not pile up on the
 * broker, then stops the containers the global setup started, if it started any.
 */
export default async function globalTeardown(): Promise<void> {
  const run = process.env.RASEED_TEST_RUN;
  if (run) {
    await deleteTopics(`test-${run}-`).catch((err: unknown) => {
      console.warn(`could not delete this run's test topics: ${String(err)}`);
    });
  }
  await heldContainers()?.stop();
}
