import { deleteTopics } from '../../services/kit/testing';

/** Deletes the Kafka topics this run's test files made, so test topics do not pile up on the broker. */
export default async function globalTeardown(): Promise<void> {
  const run = process.env.RASEED_TEST_RUN;
  if (!run) return;
  await deleteTopics(`test-${run}-`).catch((err: unknown) => {
    console.warn(`could not delete this run's test topics: ${String(err)}`);
  });
}
