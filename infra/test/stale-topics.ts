import { deleteTopics } from '../../services/kit/testing';

/**
 * Deletes the Kafka topics earlier test runs left behind (a run that was stopped, or test files
 * run on their own, keep theirs). Thousands of them slow every broker restart the fault tests
 * make, so `npm test` starts from none.
 */
deleteTopics('test-').then(
  (count) => console.log(`${count} test topics of earlier runs deleted`),
  (err: unknown) => console.warn(`could not delete earlier runs' test topics: ${String(err)}`),
);
