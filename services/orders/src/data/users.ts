import { isDuplicateKey, modelOf } from '@raseed/kit';
import { Schema, type Connection } from 'mongoose';

/** The accounts auth announced deleted (user.deleted): a local read model, one insert each. */
const deletedSchema = new Schema({ _id: String, at: { type: Date, required: true } }, { versionKey: false });

export class DeletedUsers {
  private readonly deleted;

  constructor(conn: Connection) {
    this.deleted = modelOf<{ _id: string; at: Date }>(conn, 'DeletedUser', deletedSchema, 'deleted_users');
  }

  async add(userId: string): Promise<void> {
    await this.deleted.create({ _id: userId, at: new Date() }).catch((err: unknown) => {
      if (!isDuplicateKey(err)) throw err;
    });
  }

  async has(userId: string): Promise<boolean> {
    return (await this.deleted.exists({ _id: userId })) !== null;
  }
}
