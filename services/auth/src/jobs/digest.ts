import { createQueue, createWorker, QUEUE_NAMES, withTrace, type Logger } from '@raseed/kit';
import type { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import { Types } from 'mongoose';
import type { DigestItem, DigestStore } from '../data/digest';
import type { UserStore } from '../data/users';
import { adminDigestEmail } from '../domain/notices';
import type { Email } from './email';

/** The queue of the admins' digest runs. */
export const DIGEST_QUEUE = QUEUE_NAMES.adminDigest;

/** A digest claimed this long ago and still not sent was cut off (its run died): the next run sends it. */
const CUT_OFF_AFTER_MS = 60_000;

export interface DigestDeps {
  digest: DigestStore;
  users: UserStore;
  emails: Queue<Email>;
  publicUrl: string;
}

/** What a digest run did, kept as its job's result (shown on the queue board). */
export interface DigestResult {
  digests: number;
  items: number;
}

/**
 * Sends the admins one digest of the items not yet sent. The items are claimed for a new digest
 * by inserts under their ids, so each item is in exactly one digest; the digest's e-mails are
 * queued under ids made of the digest's id, so a digest sent again after a crash (from the items
 * it claimed, the same e-mail) reaches each admin once.
 */
export async function sendDigest(deps: DigestDeps, now = new Date()): Promise<DigestResult> {
  const pending = await deps.digest.pending();
  const admins = await deps.users.admins();
  if (!pending.length || !admins.length) return { digests: 0, items: 0 };
  const ids = pending.map((i) => i._id);
  const digestId = new Types.ObjectId().toString();
  const claimed = new Set((await deps.digest.claimsOf(ids)).map((c) => c._id));
  await deps.digest.claim(
    ids.filter((id) => !claimed.has(id)),
    digestId,
    now,
  );
  const digests = new Set<string>();
  for (const claim of await deps.digest.claimsOf(ids)) {
    if (claim.digestId === digestId || now.getTime() - claim.at.getTime() >= CUT_OFF_AFTER_MS)
      digests.add(claim.digestId);
  }
  let items = 0;
  for (const id of digests) {
    const digest = await deps.digest.itemsOf(id);
    if (!digest.length) continue;
    const customers = await customerNames(deps.users, digest);
    await deps.emails.addBulk(
      admins.map((admin) => ({
        name: 'admin-digest',
        data: withTrace(adminDigestEmail(deps.publicUrl, admin.email, digest, customers)),
        opts: { jobId: `digest-${id}-${admin.id}` },
      })),
    );
    await deps.digest.markSent(digest.map((i) => i._id));
    items += digest.length;
  }
  return { digests: digests.size, items };
}

/** "username (e-mail)" of each item's customer, by user id. */
async function customerNames(users: UserStore, items: DigestItem[]): Promise<Map<string, string>> {
  const found = await users.byIds([...new Set(items.map((i) => i.userId))]);
  return new Map([...found].map(([id, user]) => [id, `${user.username} (${user.email})`]));
}

/**
 * The digest as a repeatable BullMQ job, every ADMIN_DIGEST_EVERY_SECONDS: one run per tick
 * whatever the number of auth instances (the scheduler is kept once in Redis and a job is
 * taken by one worker).
 */
export function digestJobs(
  redis: IORedis,
  logger: Logger,
  deps: DigestDeps,
  options: { everySeconds: number; prefix: string },
) {
  const queue = createQueue<{ reason: string }>(DIGEST_QUEUE, redis, logger, options.prefix);
  const worker = createWorker<{ reason: string }, DigestResult>(
    DIGEST_QUEUE,
    async () => {
      const result = await sendDigest(deps);
      if (result.items) logger.info(result, "admins' digest queued");
      return result;
    },
    redis,
    logger,
    { concurrency: 1, prefix: options.prefix },
  );
  return {
    queue,
    async start() {
      await queue.upsertJobScheduler(
        'admin-digest-every',
        { every: options.everySeconds * 1000 },
        { name: 'digest', data: { reason: 'schedule' } },
      );
    },
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
