import { createLogger, createQueue, createWorker, JobFailed, redisConnection, runJob } from '@raseed/kit';
import { eventually } from '@raseed/kit/testing';

const redis = redisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test-runner-${process.pid}-${Date.now()}`;
const queue = createQueue<{ n: number }>('runner', redis, createLogger('test', 'silent'), prefix);
let release: () => void = () => undefined;
let held = new Promise<void>((resolve) => (release = resolve));
const worker = createWorker<{ n: number }, number>(
  'runner',
  async (job) => {
    if (job.data.n < 0) throw new Error(`refused ${job.data.n}`);
    if (job.data.n === 50) await held;
    return job.data.n * 2;
  },
  redis,
  createLogger('test', 'silent'),
  { prefix, concurrency: 1 },
);
const run = (name: string, n: number, waitMs: number) =>
  runJob<{ n: number }, number>(queue, name, { n }, waitMs);

afterAll(async () => {
  release();
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
});

describe('runJob', () => {
  it("answers with the job's result, run by the queue's worker", async () => {
    expect(await run('double', 21, 10_000)).toBe(42);
    const [done] = await queue.getCompleted();
    expect(done).toMatchObject({ name: 'double', data: { n: 21 }, returnvalue: 42, attemptsMade: 1 });
  });

  it("throws a failed job's reason, tried once", async () => {
    const failure = run('double', -1, 10_000);
    await expect(failure).rejects.toBeInstanceOf(JobFailed);
    await expect(failure).rejects.toThrow('refused -1');
    const [failed] = await queue.getFailed();
    expect(failed).toMatchObject({ data: { n: -1 }, attemptsMade: 1 });
  });

  it('answers undefined when the job outlasts the wait, and the job still finishes', async () => {
    held = new Promise<void>((resolve) => (release = resolve));
    expect(await run('double', 50, 300)).toBeUndefined();
    const [running] = await queue.getActive();
    expect(running?.data).toEqual({ n: 50 });
    release();
    const finished = await eventually(async () => {
      const job = await queue.getJob(running!.id!);
      return job?.finishedOn ? job : undefined;
    });
    expect(finished.returnvalue).toBe(100);
  });
});
