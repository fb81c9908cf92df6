import { loadConfig } from '@raseed/kit';
import {
  chooseInfrastructure,
  containerEnvironment,
  dockerAnswers,
  faultTestsMayRun,
  type Published,
} from './infrastructure';

const SETTINGS_MEANING_AUTO = [
  ['unset', undefined],
  ['empty', ''],
  ['auto', 'auto'],
] as const;
const answers = () => jest.fn(() => Promise.resolve());
const silent = (why = 'Could not find a working container runtime strategy') =>
  jest.fn(() => Promise.reject(new Error(why)));

describe('choosing the test infrastructure', () => {
  it('uses the local infrastructure when told, without asking Docker', async () => {
    const probe = answers();
    await expect(chooseInfrastructure('local', false, probe)).resolves.toEqual({
      infrastructure: 'local',
      why: 'RASEED_TEST_INFRA=local',
    });
    expect(probe).not.toHaveBeenCalled();
  });

  it.each(SETTINGS_MEANING_AUTO)(
    'with RASEED_TEST_INFRA %s uses containers when Docker answers',
    async (_, setting) => {
      const probe = answers();
      await expect(chooseInfrastructure(setting, false, probe)).resolves.toEqual({
        infrastructure: 'containers',
        why: 'a Docker engine answers',
      });
      expect(probe).toHaveBeenCalledTimes(1);
    },
  );

  it.each(SETTINGS_MEANING_AUTO)(
    'with RASEED_TEST_INFRA %s falls back to local, saying why, when Docker does not answer',
    async (_, setting) => {
      await expect(chooseInfrastructure(setting, false, silent())).resolves.toEqual({
        infrastructure: 'local',
        why: 'no Docker engine answers: Could not find a working container runtime strategy',
      });
    },
  );

  it('uses containers when told and Docker answers', async () => {
    await expect(chooseInfrastructure('containers', false, answers())).resolves.toEqual({
      infrastructure: 'containers',
      why: 'a Docker engine answers',
    });
  });

  it('refuses containers with no Docker engine, saying what to do', async () => {
    await expect(chooseInfrastructure('containers', false, silent('no answer within 10 s'))).rejects.toThrow(
      'RASEED_TEST_INFRA=containers, but no Docker engine answers: no answer within 10 s. ' +
        'Start one (or point DOCKER_HOST at one), or use RASEED_TEST_INFRA=local.',
    );
  });

  it.each(['docker', 'LOCAL', 'none'])(
    'refuses RASEED_TEST_INFRA=%s without asking Docker',
    async (setting) => {
      const probe = answers();
      await expect(chooseInfrastructure(setting, false, probe)).rejects.toThrow(
        `RASEED_TEST_INFRA must be local, containers or auto (it is "${setting}")`,
      );
      expect(probe).not.toHaveBeenCalled();
    },
  );

  describe('when the run may include fault tests (they stop and start local servers)', () => {
    it.each(SETTINGS_MEANING_AUTO)(
      'with RASEED_TEST_INFRA %s uses local without asking Docker',
      async (_, setting) => {
        const probe = answers();
        await expect(chooseInfrastructure(setting, true, probe)).resolves.toEqual({
          infrastructure: 'local',
          why: 'the run may include fault tests, which stop and start local servers through infra/infra.sh',
        });
        expect(probe).not.toHaveBeenCalled();
      },
    );

    it('with RASEED_TEST_INFRA=local uses local', async () => {
      await expect(chooseInfrastructure('local', true, answers())).resolves.toMatchObject({
        infrastructure: 'local',
      });
    });

    it('refuses RASEED_TEST_INFRA=containers, saying how to run them', async () => {
      const probe = answers();
      await expect(chooseInfrastructure('containers', true, probe)).rejects.toThrow(
        'RASEED_TEST_INFRA=containers, but the run may include fault tests, which stop and start local ' +
          'servers through infra/infra.sh. ' +
          'Leave them out (--selectProjects main browser) or run them with RASEED_TEST_INFRA=local.',
      );
      expect(probe).not.toHaveBeenCalled();
    });
  });
});

describe('whether a run may include fault tests', () => {
  const JEST = ['/usr/bin/node', '/work/main/node_modules/.bin/jest'];
  const patterns = { runTestsByPath: false, nonFlagArgs: [] };

  it('says yes for every project', () => {
    expect(faultTestsMayRun(JEST, patterns)).toBe(true);
    expect(faultTestsMayRun([...JEST, 'wallet'], { runTestsByPath: false, nonFlagArgs: ['wallet'] })).toBe(
      true,
    );
  });

  it.each([
    [['--selectProjects', 'main'], false],
    [['--selectProjects', 'main', 'browser', '--json'], false],
    [['--selectProjects=browser'], false],
    [['--select-projects', 'main'], false],
    [['--selectProjects', 'main', 'fault'], true],
    [['--selectProjects', 'fault', '--runInBand'], true],
    [['--ignoreProjects', 'fault'], false],
    [['--ignoreProjects', 'browser'], true],
  ])('reads the projects from %j', (args, mayRun) => {
    expect(faultTestsMayRun([...JEST, ...args], patterns)).toBe(mayRun);
  });

  it('reads the files named with --runTestsByPath', () => {
    const byPath = (...files: string[]) =>
      faultTestsMayRun([...JEST, '--runTestsByPath', ...files], { runTestsByPath: true, nonFlagArgs: files });
    expect(byPath('infra/test/observability.test.ts', 'services/wallet/test/ledger.test.ts')).toBe(false);
    expect(byPath('infra/test/observability.test.ts', 'services/wallet/test/crash.fault.test.ts')).toBe(true);
  });
});

describe('asking whether Docker answers', () => {
  it('resolves when the engine answers', async () => {
    await expect(dockerAnswers(1000, () => Promise.resolve({}))).resolves.toBeUndefined();
  });

  it("passes on testcontainers' reason when there is no engine", async () => {
    const none = () => Promise.reject(new Error('Could not find a working container runtime strategy'));
    await expect(dockerAnswers(1000, none)).rejects.toThrow(
      'Could not find a working container runtime strategy',
    );
  });

  it('gives up on an engine that never answers', async () => {
    const started = Date.now();
    await expect(dockerAnswers(50, () => new Promise(() => {}))).rejects.toThrow('no answer within 0.05 s');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('the environment handed to the tests in containers', () => {
  // Docker publishes each container port on a port of its own choosing, here 40000 + the container's.
  const published = (host: string): Published => ({
    getHost: () => host,
    getMappedPort: (port) => 40_000 + (port % 10_000),
  });
  const env = containerEnvironment({
    mongo: published('localhost'),
    kafka: published('localhost'),
    redis: published('127.0.0.1'),
    minio: published('docker.internal'),
    mail: published('10.0.0.5'),
  });

  it('points every part of the contract at the published ports', () => {
    expect(env).toEqual({
      MONGO_URL: 'mongodb://localhost:47017/?directConnection=true',
      KAFKA_BROKERS: 'localhost:49093',
      REDIS_URL: 'redis://127.0.0.1:46379',
      CACHE_REDIS_URL: 'redis://127.0.0.1:46379/1',
      S3_ENDPOINT: 'http://docker.internal:49000',
      S3_ACCESS_KEY: 'raseed',
      S3_SECRET_KEY: 'raseed-secret',
      S3_BUCKET: 'raseed',
      SMTP_URL: 'smtp://10.0.0.5:41025',
      MAIL_API: 'http://10.0.0.5:41080',
    });
  });

  it('is read by the services as it is meant', () => {
    const config = loadConfig({}, { NODE_ENV: 'test', ...env });
    expect(config).toMatchObject({
      MONGO_URL: env.MONGO_URL,
      KAFKA_BROKERS: ['localhost:49093'],
      REDIS_URL: env.REDIS_URL,
      S3_ENDPOINT: env.S3_ENDPOINT,
      S3_ACCESS_KEY: 'raseed',
      S3_SECRET_KEY: 'raseed-secret',
      S3_BUCKET: 'raseed',
      SMTP_URL: env.SMTP_URL,
    });
  });
});
