import { dropDatabase, openDatabase, testEnv, uniqueName } from '@raseed/kit/testing';
import supertest from 'supertest';
import { loadAuthConfig } from '../src/config';
import { startAuth } from '../src/service';

export const PASSWORD = 'correct-horse-9';

/** Starts the auth service on its own database against the real infrastructure. */
export async function startTestAuth(extra: Record<string, string> = {}) {
  const adminEmail = `${uniqueName('admin')}@raseed.test`;
  // bcrypt's lowest accepted cost keeps the suite quick; the service's default is 12.
  const config = loadAuthConfig(
    testEnv('auth', {
      ADMIN_EMAIL: adminEmail,
      ADMIN_PASSWORD: PASSWORD,
      PASSWORD_HASH_COST: '10',
      ...extra,
    }),
  );
  const service = await startAuth(config);
  const db = await openDatabase(config.MONGO_DB);
  const http = () => supertest(service.url);

  async function signIn(email: string, password = PASSWORD): Promise<string> {
    const res = await http().post('/api/signin').send({ email, password }).expect(200);
    return res.body.token as string;
  }

  /** Registers a customer and answers their id, e-mail and session token. */
  async function newCustomer() {
    const username = uniqueName('user');
    const email = `${username}@example.com`;
    await http()
      .post('/api/signup')
      .send({ username, email, phone: '+961 70 123456', password: PASSWORD })
      .expect(201);
    const token = await signIn(email);
    const user = await db.collection('users').findOne({ email });
    return { id: String(user?._id), username, email, token };
  }

  return {
    config,
    service,
    db,
    http,
    signIn,
    newCustomer,
    adminEmail,
    adminToken: () => signIn(adminEmail),
    async stop() {
      await service.stop();
      await db.close();
      await dropDatabase(config.MONGO_DB);
    },
  };
}

export type TestAuth = Awaited<ReturnType<typeof startTestAuth>>;

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
