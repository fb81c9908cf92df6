import { DocumentLocks, Outbox, redisConnection } from '@raseed/kit';
import { dropDatabase, openDatabase, testEnv } from '@raseed/kit/testing';
import type IORedis from 'ioredis';
import { Types, type Connection } from 'mongoose';
import { userModel, UserStore, type UserModel } from '../src/data/users';

let conn: Connection;
let redis: IORedis;
let User: UserModel;
let store: () => UserStore;
const env = testEnv('auth');
beforeAll(async () => {
  conn = await openDatabase(env.MONGO_DB!);
  User = userModel(conn);
  await User.init();
  redis = redisConnection(env.REDIS_URL!);
  const locks = new DocumentLocks(redis);
  const outbox = new Outbox(conn);
  // Each call stands for an instance of auth of its own.
  store = () => new UserStore(User, locks, outbox);
});
afterAll(async () => {
  await conn.close();
  await dropDatabase(env.MONGO_DB!);
  redis.disconnect();
});

/** A user as recorded before the deleted flag existed: the schema's defaults but the flag. */
async function legacyUser(name: string, deletedAt: Date | null) {
  const user = new User({ username: name, usernameKey: name, email: `${name}@example.com`, deletedAt });
  const doc: Record<string, unknown> = { ...user.toObject(), createdAt: new Date() };
  delete doc.deleted;
  await User.collection.insertOne(doc);
  return user._id.toString();
}

const flagOf = async (id: string) =>
  (await User.collection.findOne({ _id: new Types.ObjectId(id) }))?.deleted as boolean | undefined;

describe('the deleted flag the users lists filter on', () => {
  it('is given once, by five instances starting at once, to the users recorded before it', async () => {
    const kept = await legacyUser('kept', null);
    const gone = await legacyUser('gone', new Date());
    // Until flagged, the lists leave them out; a lookup by id or e-mail (a sign-in) does not wait.
    expect(await store().count()).toBe(0);
    expect((await store().findByEmail('kept@example.com'))?._id.toString()).toBe(kept);

    const flagged = await Promise.all(Array.from({ length: 5 }, () => store().flagDeleted()));
    expect(Math.max(...flagged)).toBe(2);
    expect(await flagOf(kept)).toBe(false);
    expect(await flagOf(gone)).toBe(true);
    expect(await store().count()).toBe(1);
    const { users, total } = await store().page(1, 10);
    expect(users.map((u) => u._id.toString())).toEqual([kept]);
    expect(total).toBe(1);
    expect(await store().findById(gone)).toBeNull();

    // Done once a store: a later start does not read the users again.
    expect(await store().flagDeleted()).toBe(0);
  });

  it('is false for a new user and set by the deletion', async () => {
    const before = await store().count();
    const id = await store().register({
      username: 'fresh',
      email: 'fresh@example.com',
      phone: '',
      passwordHash: 'x',
      role: 'user',
    });
    expect(await flagOf(id)).toBe(false);
    expect(await store().count()).toBe(before + 1);

    expect(await store().delete(id)).toBe(true);
    expect(await flagOf(id)).toBe(true);
    expect(await store().count()).toBe(before);
    const found = await store().search('fresh', 1, 10);
    expect(found.total).toBe(0);
  });
});
