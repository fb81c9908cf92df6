import { dropDatabase, MONGO_URL, uniqueName } from '@raseed/kit/testing';
import mongoose, { Schema, type Connection, type Model } from 'mongoose';

/**
 * The documents the lock tests lock: an accounts collection in a database of the test file's
 * own, dropped after the file. Read the model through the returned function once the file's
 * setup has run.
 */
export function accountsOfOwnDatabase(prefix: string): () => Model<unknown> {
  const dbName = uniqueName(prefix);
  let conn: Connection;
  let accounts: Model<unknown>;
  beforeAll(async () => {
    conn = await mongoose.createConnection(MONGO_URL, { dbName }).asPromise();
    accounts = conn.model<unknown>('Account', new Schema({ _id: String }), 'accounts');
  });
  afterAll(async () => {
    await conn.close();
    await dropDatabase(dbName);
  });
  return () => accounts;
}
