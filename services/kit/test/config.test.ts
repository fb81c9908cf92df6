import { loadConfig } from '@raseed/kit';
import { z } from 'zod';

const SECRET = 'a-production-secret-of-more-than-32-chars';

describe('loadConfig', () => {
  it('defaults to the local infrastructure', () => {
    const config = loadConfig({}, {});
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      MONGO_URL: 'mongodb://127.0.0.1:27017',
      KAFKA_BROKERS: ['127.0.0.1:9092'],
      REDIS_URL: 'redis://127.0.0.1:6379',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      SMTP_URL: 'smtp://127.0.0.1:1025',
      JWT_TTL_SECONDS: 7 * 24 * 3600,
      OUTBOX_POLL_MS: 200,
    });
    expect(config.JWT_SECRET.length).toBeGreaterThanOrEqual(32);
  });

  it('splits KAFKA_BROKERS on commas and trims each broker', () => {
    const config = loadConfig({}, { KAFKA_BROKERS: 'kafka-1:9092, kafka-2:9092 ,kafka-3:9092' });
    expect(config.KAFKA_BROKERS).toEqual(['kafka-1:9092', 'kafka-2:9092', 'kafka-3:9092']);
  });

  it('validates and coerces a service’s own variables', () => {
    const extra = { PORT: z.coerce.number().int().default(4001), MONGO_DB: z.string() };
    expect(loadConfig(extra, { MONGO_DB: 'raseed_x', PORT: '5000' })).toMatchObject({
      PORT: 5000,
      MONGO_DB: 'raseed_x',
    });
    expect(() => loadConfig(extra, {})).toThrow(/MONGO_DB/);
  });

  it('names every invalid variable in one error', () => {
    const env = { MONGO_URL: 'not a url', JWT_TTL_SECONDS: '-5', NODE_ENV: 'staging' };
    expect(() => loadConfig({}, env)).toThrow(/invalid configuration/);
    expect(() => loadConfig({}, env)).toThrow(/MONGO_URL/);
    expect(() => loadConfig({}, env)).toThrow(/JWT_TTL_SECONDS/);
    expect(() => loadConfig({}, env)).toThrow(/NODE_ENV/);
  });

  it('requires JWT_SECRET and SERVICE_TOKEN in production only', () => {
    const token = 's'.repeat(40);
    expect(() => loadConfig({}, { NODE_ENV: 'production', SERVICE_TOKEN: token })).toThrow(
      /JWT_SECRET: required/,
    );
    expect(() => loadConfig({}, { NODE_ENV: 'production', JWT_SECRET: SECRET })).toThrow(
      /SERVICE_TOKEN: required/,
    );
    const production = loadConfig({}, { NODE_ENV: 'production', JWT_SECRET: SECRET, SERVICE_TOKEN: token });
    expect([production.JWT_SECRET, production.SERVICE_TOKEN]).toEqual([SECRET, token]);
    const test = loadConfig({}, { NODE_ENV: 'test' });
    expect([test.JWT_SECRET, test.SERVICE_TOKEN]).toEqual([expect.any(String), expect.any(String)]);
  });

  it('rejects a JWT_SECRET shorter than 32 characters, in any environment', () => {
    expect(() => loadConfig({}, { JWT_SECRET: 'short' })).toThrow(/JWT_SECRET must be at least 32/);
    expect(() => loadConfig({}, { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(31) })).toThrow(
      /JWT_SECRET/,
    );
  });
});
