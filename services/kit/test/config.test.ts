import { DEV_SECRETS, loadConfig } from '@raseed/kit';
import { z } from 'zod';

const SECRET = 'a-production-secret-of-more-than-32-chars';

const DEV = { NODE_ENV: 'development' };

describe('loadConfig', () => {
  it('defaults to the local infrastructure in development, on loopback', () => {
    const config = loadConfig({}, DEV);
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      MONGO_URL: 'mongodb://127.0.0.1:27017',
      KAFKA_BROKERS: ['127.0.0.1:9092'],
      REDIS_URL: 'redis://127.0.0.1:6379',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      SMTP_URL: 'smtp://127.0.0.1:1025',
      JWT_TTL_SECONDS: 7 * 24 * 3600,
      OUTBOX_POLL_MS: 1000,
    });
    expect(config.JWT_SECRET.length).toBeGreaterThanOrEqual(32);
  });

  it('splits KAFKA_BROKERS on commas and trims each broker', () => {
    const config = loadConfig({}, { ...DEV, KAFKA_BROKERS: 'kafka-1:9092, kafka-2:9092 ,kafka-3:9092' });
    expect(config.KAFKA_BROKERS).toEqual(['kafka-1:9092', 'kafka-2:9092', 'kafka-3:9092']);
  });

  it('validates and coerces a service’s own variables', () => {
    const extra = { PORT: z.coerce.number().int().default(4001), MONGO_DB: z.string() };
    expect(loadConfig(extra, { ...DEV, MONGO_DB: 'raseed_x', PORT: '5000' })).toMatchObject({
      PORT: 5000,
      MONGO_DB: 'raseed_x',
    });
    expect(() => loadConfig(extra, DEV)).toThrow(/MONGO_DB/);
  });

  it('names every invalid variable in one error', () => {
    const env = { MONGO_URL: 'not a url', JWT_TTL_SECONDS: '-5', NODE_ENV: 'staging' };
    expect(() => loadConfig({}, env)).toThrow(/invalid configuration/);
    expect(() => loadConfig({}, env)).toThrow(/MONGO_URL/);
    expect(() => loadConfig({}, env)).toThrow(/JWT_TTL_SECONDS/);
    expect(() => loadConfig({}, env)).toThrow(/NODE_ENV/);
  });

  it('requires every secret unless NODE_ENV says development or test, and naming each missing one', () => {
    const secrets = {
      JWT_SECRET: SECRET,
      SERVICE_TOKEN: 's'.repeat(40),
      SUPPLIER_TOKEN: 'supplier-token',
      S3_ACCESS_KEY: 'access',
      S3_SECRET_KEY: 'secret-key',
    };
    // Unset is production: the published development values never apply by accident.
    for (const env of [{}, { NODE_ENV: 'production' }]) {
      for (const name of Object.keys(secrets) as (keyof typeof secrets)[]) {
        const rest = Object.fromEntries(Object.entries(secrets).filter(([n]) => n !== name));
        expect(() => loadConfig({}, { ...env, ...rest })).toThrow(`${name}: required`);
      }
      expect(() => loadConfig({}, env)).toThrow(
        /JWT_SECRET: required\n {2}SERVICE_TOKEN: required\n {2}SUPPLIER_TOKEN: required\n {2}S3_ACCESS_KEY: required\n {2}S3_SECRET_KEY: required/,
      );
      expect(loadConfig({}, { ...env, ...secrets })).toMatchObject({ ...secrets, NODE_ENV: 'production' });
    }
    for (const NODE_ENV of ['development', 'test']) {
      const config = loadConfig({}, { NODE_ENV });
      for (const name of Object.keys(secrets) as (keyof typeof secrets)[])
        expect(config[name]).toEqual(DEV_SECRETS[name]);
    }
  });

  it('rejects a JWT_SECRET shorter than 32 characters, in any environment', () => {
    expect(() => loadConfig({}, { ...DEV, JWT_SECRET: 'short' })).toThrow(/JWT_SECRET must be at least 32/);
    expect(() => loadConfig({}, { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(31) })).toThrow(
      /JWT_SECRET/,
    );
  });
});
