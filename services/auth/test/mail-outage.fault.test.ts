import { createQueue, redisConnection } from '@raseed/kit';
import { eventually, infra, waitForEmail } from '@raseed/kit/testing';
import { EMAIL_QUEUE } from '../src/jobs/email';
import { startTestAuth, type TestAuth } from './support';

let auth: TestAuth;
let queue: ReturnType<typeof createQueue>;
const redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
beforeAll(async () => {
  auth = await startTestAuth();
  queue = createQueue(EMAIL_QUEUE, redis, auth.service.context.logger, auth.config.QUEUE_PREFIX);
});
afterAll(async () => {
  await infra('up', 'mail');
  await queue.close();
  await redis.quit();
  await auth.stop();
});

describe('with the mail server down', () => {
  it('keeps the reset e-mail queued and delivers it once the server is back', async () => {
    const customer = await auth.newCustomer();
    await infra('down', 'mail');
    await auth.http().post('/api/reset-password-request').send({ email: customer.email }).expect(200);

    const reset = await auth.db.collection('password_resets').findOne({});
    const jobId = `reset-${String(reset?._id)}`;
    // A delivery really failed (attemptsMade alone also counts one that succeeded).
    const failed = await eventually(async () => (await queue.getJob(jobId))?.failedReason || undefined, {
      timeoutMs: 10_000,
      what: 'a failed delivery attempt',
    });
    expect(failed).toMatch(/ECONNREFUSED|connect/i);

    await infra('up', 'mail');
    const mails = await waitForEmail(customer.email, 30_000);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.text).toContain('/reset-password/');
  });
});
