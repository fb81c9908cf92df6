import pRetry from 'p-retry';
import { Kafka, logLevel, type Admin, type LogEntry } from 'kafkajs';
import type { Logger } from './logger';

export function createKafka(clientId: string, brokers: string[], logger: Logger): Kafka {
  const log = logger.child({ component: 'kafka' });
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3000,
    retry: { initialRetryTime: 300, retries: 8, maxRetryTime: 5000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }: LogEntry) => {
        const { message, ...rest } = entry;
        if (level <= logLevel.ERROR) log.error(rest, message);
        else log.warn(rest, message);
      },
  });
}

/** Creates the topics that do not exist yet (one per event type). */
export async function ensureTopics(admin: Admin, topics: string[], partitions = 3): Promise<void> {
  // A broker that has just started may not serve metadata yet: its retriable errors are tried again.
  await pRetry(
    async () => {
      try {
        const existing = new Set(await admin.listTopics());
        const missing = topics.filter((t) => !existing.has(t));
        if (missing.length === 0) return;
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((topic) => ({ topic, numPartitions: partitions })),
        });
      } catch (err) {
        if ((err as { retriable?: boolean }).retriable === false) throw new pRetry.AbortError(err as Error);
        throw err;
      }
    },
    { retries: 8, minTimeout: 250, maxTimeout: 2000 },
  );
}
