import type { DocumentLocks } from '@raseed/kit';
import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';

const resetSchema = new Schema(
  {
    tokenHash: { type: String, required: true, unique: true },
    userId: { type: String, required: true, index: true },
    expiresAt: { type: Date, required: true },
    usedAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);

type PasswordReset = InferSchemaType<typeof resetSchema>;

export class ResetStore {
  readonly resets: Model<PasswordReset>;

  constructor(
    conn: Connection,
    private readonly locks: DocumentLocks,
  ) {
    this.resets =
      (conn.models.PasswordReset as Model<PasswordReset> | undefined) ??
      conn.model<PasswordReset>('PasswordReset', resetSchema, 'password_resets');
  }

  async create(userId: string, tokenHash: string, ttlMinutes: number): Promise<string> {
    const doc = await this.resets.create({
      userId,
      tokenHash,
      expiresAt: new Date(Date.now() + ttlMinutes * 60_000),
    });
    return doc._id.toString();
  }

  /** Uses the token once: answers its user id, or null when it is unknown, used or expired. */
  async consume(tokenHash: string): Promise<string | null> {
    const now = new Date();
    // Two requests with one link must not both pass (see DocumentLocks).
    const reset = await this.locks.run(this.resets, tokenHash, () =>
      this.resets.findOneAndUpdate(
        { tokenHash, usedAt: null, expiresAt: { $gt: now } },
        { $set: { usedAt: now } },
        { new: true },
      ),
    );
    if (!reset) return null;
    // Any other link still out for this user stops working too.
    await this.resets.updateMany({ userId: reset.userId, usedAt: null }, { $set: { usedAt: now } });
    return reset.userId;
  }

  /** The store may have no TTL indexes, so stale tokens are removed here. */
  async purgeExpired(): Promise<void> {
    await this.resets.deleteMany({ expiresAt: { $lt: new Date(Date.now() - 24 * 3600_000) } });
  }
}
