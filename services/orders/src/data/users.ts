import { bumpVersion, isDuplicateKey, modelOf, VersionedMemo } from '@raseed/kit';
import type IORedis from 'ioredis';
import { Schema, type Connection } from 'mongoose';

/** The accounts auth announced deleted (user.deleted): a local read model, one insert each. */
const deletedSchema = new Schema({ _id: String, at: { type: Date, required: true } }, { versionKey: false });

export class DeletedUsers {
  private readonly deleted;
  /** Every order asks; a deletion moves the version on, so no account is taken for alive after it is heard of. */
  private readonly memo: VersionedMemo<boolean>;

  constructor(
    conn: Connection,
    private readonly redis: IORedis,
    /** Moved on by every deletion heard of (see VersionedMemo). */
    private readonly versionKey: string,
  ) {
    this.deleted = modelOf<{ _id: string; at: Date }>(conn, 'DeletedUser', deletedSchema, 'deleted_users');
    this.memo = new VersionedMemo(redis, versionKey);
  }

  async add(userId: string): Promise<void> {
    await this.deleted.create({ _id: userId, at: new Date() }).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err;
    });
    await bumpVersion(this.redis, this.versionKey);
  }

  has(userId: string): Promise<boolean> {
    return this.memo.get(userId, async () => (await this.deleted.exists({ _id: userId })) !== null);
  }
}
