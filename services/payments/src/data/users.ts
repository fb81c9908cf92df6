import { isDuplicateKey } from '@raseed/kit';
import { Schema, type Connection, type Model } from 'mongoose';

/** Who the users are, as auth announced them (user.registered, user.deleted): a local read model. */
const userSchema = new Schema(
  { _id: String, username: String, role: String, deletedAt: { type: Date, default: null } },
  { versionKey: false },
);
export interface KnownUser {
  _id: string;
  username: string;
  role: string;
  deletedAt: Date | null;
}

export class UserDirectory {
  readonly users: Model<KnownUser>;

  constructor(conn: Connection) {
    this.users =
      (conn.models.KnownUser as Model<KnownUser> | undefined) ??
      conn.model<KnownUser>('KnownUser', userSchema, 'users');
  }

  async add(user: { id: string; username: string; role: string }): Promise<void> {
    try {
      await this.users.create({ _id: user.id, username: user.username, role: user.role });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  // Only this service's consumer writes these documents. The two events come on topics of
  // their own, so a deletion may arrive first: it leaves a tombstone the registration keeps.
  async remove(id: string): Promise<void> {
    await this.users.updateOne({ _id: id }, { $set: { deletedAt: new Date() } }, { upsert: true });
  }

  /** A user as announced, a deleted one too (with deletedAt): what they did before still counts. */
  lookup(id: string): Promise<KnownUser | null> {
    return this.users.findById(id).lean<KnownUser>();
  }
}
