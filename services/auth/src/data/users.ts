import {
  carriesEvents,
  insertOnce,
  modelOf,
  toDollars,
  type DocumentLocks,
  type EventEnvelope,
  type Outbox,
  type Role,
} from '@raseed/kit';
import {
  Schema,
  Types,
  type Connection,
  type HydratedDocument,
  type InferSchemaType,
  type Model,
  type UpdateQuery,
} from 'mongoose';
import { createHash } from 'node:crypto';
import { userDeleted, userDiscountChanged, userRegistered } from '../events/published';

const userSchema = new Schema(
  {
    username: { type: String, required: true },
    // Uniqueness ignores case: "Sara" and "sara" are one name.
    usernameKey: { type: String, required: true, unique: true },
    email: { type: String, required: true, unique: true },
    phone: { type: String, default: '' },
    passwordHash: { type: String, select: false },
    role: { type: String, enum: ['admin', 'user'], default: 'user', required: true },
    percentage: { type: Number, default: null },
    percentageSetAt: { type: Date, default: null },
    /** When the discount was last set or removed: the Users List counts sales from here. */
    salesSince: { type: Date, default: null },
    /** The wallet's debt (micro-dollars) after its ledger entry debtSeq (wallet.debt-changed). */
    debt: { type: Number, default: 0 },
    debtSeq: { type: Number, default: null },
    deletedAt: { type: Date, default: null },
    /**
     * Set with deletedAt, and what the lists and counts filter on: the local store answers a
     * boolean's equality from the data but not a null's (700 ms against 10 ms for a page of
     * 5,000 users). A lookup by a unique key still reads deletedAt.
     */
    deleted: { type: Boolean, default: false },
    /** Top-up and order e-mails; off leaves only the essential ones (password resets, contact replies). */
    emailNotifications: { type: Boolean, default: true },
  },
  { timestamps: true, versionKey: false },
);
userSchema.plugin(carriesEvents);
userSchema.index({ role: 1, deleted: 1 });
userSchema.index({ createdAt: -1 });

export type User = InferSchemaType<typeof userSchema> & { _id: Types.ObjectId; createdAt: Date };
export type UserModel = Model<User>;
export type UserDocument = HydratedDocument<User>;

export function userModel(conn: Connection): UserModel {
  return (conn.models.User as UserModel | undefined) ?? conn.model<User>('User', userSchema, 'users');
}

/** Not deleted, for a lookup by a unique key. */
const active = { deletedAt: null };
/** Not deleted, for the lists and counts (see `deleted`). */
const listed = { deleted: false };
/** The step that gave users recorded before `deleted` existed their flag (see UserStore.flagDeleted). */
const FLAG_STEP = 'users.deleted';
/** Users flagged at once. */
const FLAGGED_AT_ONCE = 50;

/**
 * An admin's deletion, decided once against the admins there were (rule 9): keyed by the
 * SHA-256 of their sorted ids, naming the one to delete. Two admins deleting each other read
 * the same admins, so one insert wins, and the last admin is never deleted.
 */
const adminRemovalSchema = new Schema(
  {
    _id: { type: String },
    userId: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
interface AdminRemoval {
  _id: string;
  userId: string;
  at: Date;
}

/** A one-time step on the store, done once it is recorded under its name. */
const stepSchema = new Schema(
  { _id: { type: String }, at: { type: Date, required: true } },
  { versionKey: false },
);

export interface UserFigures {
  /** Micro-dollars of confirmed top-ups, all time. */
  sales: number;
  /** Micro-dollars of confirmed top-ups since the discount was last set or removed (all time if never). */
  salesSinceDiscount: number;
}

/** The user as the admin screens read it (spec §3, admin view), with the Users List figures. */
export function toAdminView(user: User, figures: UserFigures = { sales: 0, salesSinceDiscount: 0 }) {
  return {
    id: user._id.toString(),
    username: user.username,
    email: user.email,
    phone: user.phone,
    role: user.role,
    created_at: user.createdAt,
    percentage: user.percentage ?? null,
    percentage_set_at: user.percentageSetAt ?? null,
    debt: toDollars(user.debt ?? 0),
    sales: toDollars(figures.sales),
    lastsales: toDollars(figures.salesSinceDiscount),
  };
}

export class UserStore {
  constructor(
    readonly users: UserModel,
    private readonly locks: DocumentLocks,
    private readonly outbox: Outbox,
  ) {}

  /**
   * An update announced by its event, recorded first (see carriesEvents) and only for a user
   * who is there to change: a cut-off update is finished by the admin's retry.
   */
  private async announced(event: EventEnvelope, id: string, change: UpdateQuery<User>): Promise<boolean> {
    if (!(await this.findById(id))) return false;
    await this.outbox.add(event);
    return this.update(id, change);
  }

  /** Updates one user as the only writer of that document (see DocumentLocks). */
  private async update(id: string, change: UpdateQuery<User>): Promise<boolean> {
    const result = await this.locks.run(this.users, id, () =>
      this.users.updateOne({ _id: id, ...active }, change),
    );
    return result.matchedCount === 1;
  }

  /**
   * Inserts the user carrying its user.registered event (its later updates never change
   * `events`). Throws a duplicate-key error on a taken name or e-mail.
   */
  async register(input: {
    username: string;
    email: string;
    phone: string;
    passwordHash: string;
    role: Role;
  }) {
    const _id = new Types.ObjectId();
    const createdAt = new Date();
    const event = userRegistered({ id: _id.toString(), ...input, createdAt });
    await this.outbox.create(
      this.users,
      { _id, ...input, usernameKey: input.username.toLowerCase(), createdAt },
      [event],
      { _id },
    );
    return _id.toString();
  }

  /**
   * Gives each user recorded before `deleted` existed the flag its deletedAt implies, each as
   * the only writer of its document (a deletion at the same moment sets it too), once a store:
   * a record under the step's name says it is done. Until then the lists leave out those not
   * flagged yet. Answers how many it flagged.
   */
  async flagDeleted(): Promise<number> {
    const steps = modelOf<{ _id: string; at: Date }>(this.users.db, 'AuthStep', stepSchema, 'auth_steps');
    if (await steps.exists({ _id: FLAG_STEP })) return 0;
    const unflagged = await this.users
      .find({ deleted: { $exists: false } })
      .select({ deletedAt: 1 })
      .lean<Pick<User, '_id' | 'deletedAt'>[]>();
    for (let i = 0; i < unflagged.length; i += FLAGGED_AT_ONCE) {
      await Promise.all(
        unflagged
          .slice(i, i + FLAGGED_AT_ONCE)
          .map((user) =>
            this.locks.run(this.users, user._id.toString(), () =>
              this.users.updateOne(
                { _id: user._id, deleted: { $exists: false } },
                { $set: { deleted: Boolean(user.deletedAt) } },
              ),
            ),
          ),
      );
    }
    await insertOnce(steps, { _id: FLAG_STEP, at: new Date() });
    return unflagged.length;
  }

  findByEmailWithPassword(email: string) {
    return this.users
      .findOne({ email, ...active })
      .select('+passwordHash')
      .lean<User>();
  }

  /** Where admin notices go: every active admin's e-mail. */
  async adminEmails(): Promise<string[]> {
    const admins = await this.users
      .find({ role: 'admin', ...active })
      .select('email')
      .lean<{ email: string }[]>();
    return admins.map((a) => a.email);
  }

  /** Every active admin, who each get the admins' digest. */
  async admins(): Promise<{ id: string; email: string }[]> {
    const admins = await this.users
      .find({ role: 'admin', ...active })
      .select('email')
      .lean<{ _id: Types.ObjectId; email: string }[]>();
    return admins.map((a) => ({ id: a._id.toString(), email: a.email }));
  }

  /** The users of the ids who are still there, by id. */
  async byIds(ids: string[]): Promise<Map<string, User>> {
    const valid = ids.filter((id) => Types.ObjectId.isValid(id));
    const found = await this.users.find({ _id: { $in: valid }, ...active }).lean<User[]>();
    return new Map(found.map((u) => [u._id.toString(), u]));
  }

  findByEmail(email: string) {
    return this.users.findOne({ email, ...active }).lean<User>();
  }

  findById(id: string) {
    return this.users.findOne({ _id: id, ...active }).lean<User>();
  }

  async hasAdmin(): Promise<boolean> {
    return (await this.users.exists({ role: 'admin', ...active })) !== null;
  }

  count(): Promise<number> {
    return this.users.countDocuments(listed);
  }

  async page(page: number, limit: number) {
    const [users, total] = await Promise.all([
      this.users
        .find(listed)
        .sort({ createdAt: -1, _id: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<User[]>(),
      this.count(),
    ]);
    return { users, total };
  }

  /**
   * A page of the users whose name, e-mail or phone contains the text, ignoring case, newest
   * first. No index serves a search, so each query reads every user: the matches are counted
   * only when the page does not tell how many there are (a short page ends them).
   */
  async search(pattern: string, page: number, limit: number) {
    const match = { $regex: pattern, $options: 'i' };
    const found = { ...listed, $or: [{ username: match }, { email: match }, { phone: match }] };
    const skipped = (page - 1) * limit;
    const users = await this.users
      .find(found)
      .sort({ createdAt: -1, _id: -1 })
      .skip(skipped)
      .limit(limit)
      .lean<User[]>();
    const ended = users.length < limit && (users.length > 0 || page === 1);
    const total = ended ? skipped + users.length : await this.users.countDocuments(found);
    return { users, total };
  }

  setPassword(id: string, passwordHash: string): Promise<boolean> {
    return this.update(id, { $set: { passwordHash } });
  }

  /** Turns the user's top-up and order e-mails on or off. */
  setEmailNotifications(id: string, on: boolean): Promise<boolean> {
    return this.update(id, { $set: { emailNotifications: on } });
  }

  /** Sets or removes the discount; either marks where the "sales since the last discount" start. */
  setDiscount(id: string, percentage: number | null) {
    const setAt = new Date();
    return this.announced(userDiscountChanged(id, percentage, setAt), id, {
      $set: { percentage, percentageSetAt: percentage === null ? null : setAt, salesSince: setAt },
    });
  }

  /** The ids of the active admins, sorted. */
  async adminIds(): Promise<string[]> {
    const admins = await this.users
      .find({ role: 'admin', ...active })
      .select({ _id: 1 })
      .lean<{ _id: Types.ObjectId }[]>();
    return admins.map((a) => a._id.toString()).sort();
  }

  /** Decides which admin of `admins` is deleted (see adminRemovalSchema): `id`, or the one someone decided first. */
  async decideAdminRemoval(admins: string[], id: string): Promise<string> {
    const removals = modelOf<AdminRemoval>(
      this.users.db,
      'AdminRemoval',
      adminRemovalSchema,
      'admin_removals',
    );
    const key = createHash('sha256').update(admins.join(',')).digest('hex');
    return (await insertOnce(removals, { _id: key, userId: id, at: new Date() })).record.userId;
  }

  /**
   * Deletes the account: personal data is erased and the name and e-mail freed, while
   * the record stays as a tombstone.
   */
  delete(id: string): Promise<boolean> {
    const tombstone = `deleted-${id}`;
    return this.announced(userDeleted(id), id, {
      $set: {
        deleted: true,
        deletedAt: new Date(),
        username: tombstone,
        usernameKey: tombstone,
        email: `${tombstone}@deleted.invalid`,
        phone: '',
        passwordHash: '',
        percentage: null,
      },
    });
  }
}
