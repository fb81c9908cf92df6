import mongoose, { type Connection, type Model, type Schema } from 'mongoose';

// Request input reaches queries only after schema validation into plain strings and numbers,
// so an operator object such as {"$gt": ""} never becomes part of a filter.
// A filter on a path the schema lacks is a bug; fail loudly rather than match everything.
mongoose.set('strictQuery', 'throw');
// A query run twice is a bug mongoose reports with the stack of its first run, which it would
// otherwise capture (and format) for every query: 0.6 % of the orders service's time under load.
mongoose.set('skipOriginalStackTraces', true);

const SELECT_MS = 5_000;

export async function connectMongo(url: string, dbName: string): Promise<Connection> {
  // While the store is away a command waits for it at most SELECT_MS, then fails (answered 503,
  // see isOutage): mongoose does not hold commands on its own as well.
  const conn = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: SELECT_MS,
    bufferCommands: false,
    maxPoolSize: 20,
  });
  await conn.asPromise();
  return conn;
}

export function isDuplicateKey(err: unknown): err is { code: 11000; keyPattern?: Record<string, unknown> } {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

/**
 * The connection's model of that name, compiled once. Typed by the caller's document
 * interface rather than inferred from the schema, which keeps the compiler fast.
 */
export function modelOf<T>(conn: Connection, name: string, schema: Schema, collection: string): Model<T> {
  return (
    (conn.models[name] as Model<T> | undefined) ??
    (conn.model(name, schema, collection) as unknown as Model<T>)
  );
}

/**
 * Inserts a record under its unique `_id`, or answers the record inserted first (ARCHITECTURE
 * rule 9): what must happen once is decided by this insert, never by an update.
 */
export async function insertOnce<T extends { _id: unknown }>(
  model: Model<T>,
  record: T,
  /** How the record is written (Outbox.insertOnce writes its pointer first). */
  create: () => Promise<unknown> = () => model.create(record),
): Promise<{ first: true; record: T } | { first: false; record: T }> {
  try {
    await create();
    return { first: true, record };
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const earlier = await model.findById(record._id).lean<T>();
    if (!earlier) throw err;
    return { first: false, record: earlier as T };
  }
}

/**
 * Inserts documents in one unordered call, each under its unique key; answers the positions of
 * those another writer inserted first (a duplicate key) and throws any other failure.
 */
export async function insertNew(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any model's documents can be inserted
  model: Model<any>,
  docs: object[],
  options: { lean?: boolean } = {},
): Promise<Set<number>> {
  if (!docs.length) return new Set();
  try {
    await model.insertMany(docs, { ordered: false, ...options });
    return new Set();
  } catch (err) {
    const failures = writeFailures(err);
    if (!failures.length || failures.some((f) => !f.duplicate)) throw err;
    return new Set(failures.map((f) => f.index));
  }
}

/**
 * The documents a bulk insert refused, by their position in the call, and whether each was
 * refused for a duplicate key; none when the failure names no document (the call itself failed).
 */
export function writeFailures(err: unknown): { index: number; duplicate: boolean }[] {
  const errors = (err as { writeErrors?: { index: number; code?: number; err?: { code?: number } }[] })
    .writeErrors;
  return (errors ?? []).map((e) => ({ index: e.index, duplicate: (e.code ?? e.err?.code) === 11000 }));
}
