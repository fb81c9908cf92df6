import { deleteTestBuckets, deleteTopics } from '../../services/kit/testing';
import { heldContainers } from './infrastructure';

/**
 * Deletes the Kafka topics and the buckets this run's test files made, so they do not pile up
 * on the broker and the object store, then stops the containers the global setup started, if it started any.
 */
export default async function globalTeardown(): Promise<void> {
  const run = process.env.RASEED_TEST_RUN;
  if (run) {
    await deleteTopics(`test-${run}-`).catch((err: unknown) => {
      console.warn(`could not delete this run's test topics: ${String(err)}`);
    });
    await deleteTestBuckets(run).catch((err: unknown) => {
      console.warn(`could not delete this run's test buckets: ${String(err)}`);
    });
  }
  await heldContainers()?.stop();
}
