import { dropDatabase, eventually, MONGO_URL, uniqueName } from '@raseed/kit/testing';
import { MongoClient, ObjectId } from 'mongodb';
import { escapeRegex } from '../../services/auth/src/domain/rules';
import { sql } from '../postgres';

/**
 * The local store (FerretDB on PostgreSQL) hands PostgreSQL each equality filter as
 * `_jsonb->'field' @> value`, which its own btree indexes cannot serve: every lookup read the
 * whole table. infra/ferretdb/gin-indexes.patch gives each index on top-level fields a GIN
 * companion that can; infra/ferretdb/pushdown.patch has PostgreSQL sort, skip, limit and
 * count when it evaluates the whole filter, look up a list of ids by index, and select the
 * documents of a search's literal text, a list of values and a null themselves. Read here from
 * PostgreSQL itself; the plans are skipped on a real mongod, the results are checked on either.
 */
const dbName = uniqueName('raseed_indexes_test_');
let client: MongoClient;
let ferret = false;

beforeAll(async () => {
  client = await MongoClient.connect(MONGO_URL);
  ferret = 'ferretdbVersion' in (await client.db('admin').command({ buildInfo: 1 }));
});

afterAll(async () => {
  await client.close();
  await dropDatabase(dbName);
});

/** FerretDB's explain answers PostgreSQL's plan of the query it sends. */
const planOf = async (collection: string, filter: object) =>
  JSON.stringify((await client.db(dbName).command({ explain: { find: collection, filter } })).queryPlanner);

describe('indexes of the local store', () => {
  it('gives each index on top-level fields a GIN companion that serves the filters it is sent', async () => {
    if (!ferret) return console.log('the store is not FerretDB: nothing to check');
    const orders = client.db(dbName).collection('orders');
    await orders.insertOne({ userId: 'u1', status: 'waiting', fields: { email: 'a@b.c' } });
    await orders.createIndex({ userId: 1 });
    await orders.createIndex({ 'fields.email': 1 });
    await orders.createIndex({ status: 1, userId: -1 }, { name: 'by_status_and_user' });

    const [table] = sql(
      `SELECT tablename FROM pg_tables WHERE schemaname = '${dbName}' AND tablename LIKE 'orders%'`,
    );
    const gin = () =>
      sql(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = '${dbName}' AND indexname LIKE '%\\_gin' ORDER BY 1`,
      );
    expect(gin()).toEqual([
      expect.stringMatching(/USING gin \(\(\(_jsonb -> '_id'::text\)\) jsonb_path_ops\)$/),
      expect.stringMatching(
        /USING gin \(\(\(_jsonb -> 'status'::text\)\) jsonb_path_ops, \(\(_jsonb -> 'userId'::text\)\) jsonb_path_ops\)$/,
      ),
      expect.stringMatching(/USING gin \(\(\(_jsonb -> 'userId'::text\)\) jsonb_path_ops\)$/),
    ]);

    // The filters exactly as FerretDB writes them; the table is tiny, so the planner is told to
    // use an index where one serves.
    const plan = (where: string) =>
      sql(`SET enable_seqscan = off; EXPLAIN SELECT _jsonb FROM "${dbName}"."${table}" WHERE ${where}`).join(
        '\n',
      );
    expect(plan(`_jsonb->'userId' @> '"u1"'`)).toMatch(/Bitmap Index Scan on \S+_gin/);
    expect(plan(`_jsonb->'_id' @> '{"$o": "6565a0000000000000000000"}'`)).toMatch(
      /Bitmap Index Scan on \S+_id_\S+_gin/,
    );

    // A dropped index takes its companion with it.
    await orders.dropIndex('by_status_and_user');
    expect(gin()).toHaveLength(2);
  });

  it('answers sorted pages and counts as MongoDB does, whichever part PostgreSQL evaluates', async () => {
    const orders = client.db(dbName).collection('pages');
    await orders.createIndex({ createdAt: -1 });
    await orders.createIndex({ status: 1 });
    const statuses = ['waiting', 'confirmed', 'rejected'];
    const names = ['b', 'B', 'a', 'é', 'z', 'Ab', 'ab', ''];
    const docs = Array.from({ length: 600 }, (_, i) => ({
      n: i,
      status: statuses[i % 3]!,
      userId: `u${i % 7}`,
      name: `${names[i % names.length]!}${i % 5}`,
      // Three documents have no date: MongoDB sorts a missing field lowest.
      ...(i % 200 !== 17 && { createdAt: new Date(1_700_000_000_000 + ((i * 7919) % 600) * 1000) }),
    }));
    await orders.insertMany(docs.map((d) => ({ ...d })));

    type Doc = (typeof docs)[number];
    const at = (d: Doc) => d.createdAt?.getTime() ?? -Infinity;
    const compare = (x: number | string, y: number | string) => (x === y ? 0 : x < y ? -1 : 1);
    const byDate = (dir: 1 | -1) => (a: Doc, b: Doc) => dir * compare(at(a), at(b));
    const bytes = (s: string) => Buffer.from(s, 'utf8');
    const byName = (a: Doc, b: Doc) => Buffer.compare(bytes(a.name), bytes(b.name)) || a.n - b.n;
    const ns = (list: { n: number }[]) => list.map((d) => d.n);
    const page = (filter: object, sort: Record<string, 1 | -1>, skip: number, limit: number) =>
      orders.find<{ n: number }>(filter, { sort, skip, limit }).toArray().then(ns);

    const waiting = docs.filter((d) => d.status === 'waiting');
    expect(await page({ status: 'waiting' }, { createdAt: -1 }, 10, 10)).toEqual(
      ns(waiting.sort(byDate(-1)).slice(10, 20)),
    );
    const mine = docs.filter((d) => d.status === 'confirmed' && d.userId === 'u3');
    expect(await page({ status: 'confirmed', userId: 'u3' }, { createdAt: 1 }, 0, 5)).toEqual(
      ns(mine.sort(byDate(1)).slice(0, 5)),
    );
    // Sorted on two fields (dates are unique within a customer's documents).
    expect(await page({}, { userId: 1, createdAt: -1 }, 40, 30)).toEqual(
      ns([...docs].sort((a, b) => compare(a.userId, b.userId) || byDate(-1)(a, b)).slice(40, 70)),
    );
    // The documents without a date come last newest first, and first oldest first.
    expect(await page({}, { createdAt: -1 }, 597, 10)).toEqual(
      expect.arrayContaining(ns(docs.filter((d) => !d.createdAt))),
    );
    expect((await page({}, { createdAt: 1 }, 0, 3)).sort((a, b) => a - b)).toEqual([17, 217, 417]);
    // Strings by their bytes, as MongoDB compares them; names repeat, so ties are broken here.
    const named = (await orders.find({ status: { $ne: 'rejected' } }, { sort: { name: 1 } }).toArray()).map(
      (d) => d.name as string,
    );
    expect(named).toEqual(
      docs
        .filter((d) => d.status !== 'rejected')
        .sort(byName)
        .map((d) => d.name),
    );
    // A range is evaluated by FerretDB itself: the same answer by another road.
    const since = new Date(1_700_000_000_000 + 300_000);
    expect(await page({ createdAt: { $gte: since } }, { createdAt: -1 }, 5, 5)).toEqual(
      ns(
        docs
          .filter((d) => d.createdAt && d.createdAt >= since)
          .sort(byDate(-1))
          .slice(5, 10),
      ),
    );

    expect(await orders.countDocuments({})).toBe(600);
    expect(await orders.countDocuments({ status: 'waiting' })).toBe(200);
    expect(await orders.countDocuments({ status: 'waiting', userId: 'u1' })).toBe(
      docs.filter((d) => d.status === 'waiting' && d.userId === 'u1').length,
    );
    expect(await orders.countDocuments({ status: 'none' })).toBe(0);
    expect(await orders.countDocuments({ createdAt: { $gte: since } })).toBe(
      docs.filter((d) => d.createdAt && d.createdAt >= since).length,
    );
  });

  it('reads a page of the newest documents by index, not the whole table', async () => {
    if (!ferret) return console.log('the store is not FerretDB: nothing to check');
    const orders = client.db(dbName).collection('newest');
    // The index first: building one on existing rows would read the table.
    await orders.createIndex({ createdAt: -1 });
    await orders.insertMany(
      Array.from({ length: 3000 }, (_, i) => ({ paid: true, createdAt: new Date(1_700_000_000_000 + i) })),
    );
    const [table] = sql(
      `SELECT tablename FROM pg_tables WHERE schemaname = '${dbName}' AND tablename LIKE 'newest%'`,
    );
    const read = () =>
      sql(
        `SELECT seq_tup_read, coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables WHERE schemaname = '${dbName}' AND relname = '${table}'`,
      )[0]!
        .split('|')
        .map(Number);

    const newest = await orders
      .find({ paid: true }, { sort: { createdAt: -1 }, skip: 20, limit: 10 })
      .toArray();
    expect(newest.map((d) => (d.createdAt as Date).getTime() - 1_700_000_000_000)).toEqual(
      Array.from({ length: 10 }, (_, i) => 2979 - i),
    );
    // PostgreSQL reports what each session read within about ten seconds.
    const [scanned, fetched] = await eventually(
      async () => {
        const counts = read();
        return counts[0]! + counts[1]! > 0 ? counts : undefined;
      },
      { timeoutMs: 30_000, what: 'the read of the page reported' },
    );
    expect(scanned).toBe(0);
    expect(fetched).toBeLessThanOrEqual(30);
  }, 60_000);

  it('reads the documents an `$in` of ids lists from the `_id` index, and answers any other list as MongoDB does', async () => {
    const codes = client.db(dbName).collection<{ _id: ObjectId; n: number; slot: string | number }>('listed');
    const docs = Array.from({ length: 20_000 }, (_, n) => ({
      _id: new ObjectId(),
      n,
      slot: n % 3 ? `s${n % 10}` : n % 10,
    }));
    for (let i = 0; i < docs.length; i += 5000) await codes.insertMany(docs.slice(i, i + 5000));
    const ns = (found: { n: number }[]) => found.map((d) => d.n).sort((a, b) => a - b);
    const count = (slots: (string | number)[]) => docs.filter((d) => slots.includes(d.slot)).length;

    const wanted = [7, 4242, 19_999].map((n) => docs[n]!._id);
    expect(ns(await codes.find({ _id: { $in: [...wanted, new ObjectId()] } }).toArray())).toEqual([
      7, 4242, 19_999,
    ]);
    // An id spelled as a string is not the ObjectID.
    expect(await codes.countDocuments({ _id: { $in: [wanted[0]!.toHexString()] as never[] } })).toBe(0);
    // Lists on other fields, of any types: the same answers.
    await codes.createIndex({ slot: 1 });
    expect(await codes.countDocuments({ slot: { $in: ['s1', 's2'] } })).toBe(count(['s1', 's2']));
    expect(await codes.countDocuments({ slot: { $in: ['s1', 1] } })).toBe(count(['s1', 1]));
    expect(await codes.countDocuments({ slot: { $in: [] } })).toBe(0);
    // Summed by the store, as the Users List sums a page of users' sales.
    const byList = [
      { $match: { slot: { $in: ['s1', 's2'] } } },
      { $group: { _id: '$slot', n: { $sum: '$n' } } },
    ];
    const sums = await codes.aggregate<{ _id: string; n: number }>(byList).toArray();
    const sumOf = (slot: string) => docs.filter((d) => d.slot === slot).reduce((t, d) => t + d.n, 0);
    expect(Object.fromEntries(sums.map((r) => [r._id, r.n]))).toEqual({ s1: sumOf('s1'), s2: sumOf('s2') });
    if (!ferret) return;

    const plan = (filter: object) => planOf('listed', filter);
    // One scan of the `_id` index for the whole list.
    const byIds = await plan({ _id: { $in: wanted } });
    expect(byIds).toMatch(/"Index Name":"listed\w*__id_\w*_idx"/);
    expect(byIds).toMatch(/"Index Cond":"\(\(\S+ -> '_id'::text\) = ANY /);
    expect(byIds).not.toMatch(/Seq Scan/);
    // A list on another field: one scan of its GIN companion a value.
    const bySlots = await plan({ slot: { $in: ['s1', 's2'] } });
    expect(bySlots).toMatch(/"Index Name":"listed\w*_slot_\w*_gin"/);
    expect(bySlots).toMatch(/"Index Cond":"\(\(\S+ -> 'slot'::text\) @> ANY /);
    expect(bySlots).not.toMatch(/Seq Scan/);
    const summed = JSON.stringify(
      (await client.db(dbName).command({ explain: { aggregate: 'listed', pipeline: byList, cursor: {} } }))
        .queryPlanner,
    );
    expect(summed).toMatch(/"Index Name":"listed\w*_slot_\w*_gin"/);
    expect(summed).not.toMatch(/Seq Scan/);
  }, 120_000);

  it('answers a search, a list and a null as MongoDB does, with PostgreSQL selecting the documents', async () => {
    type Person = { n: number; name?: unknown; email?: unknown; tags?: unknown; seen?: unknown };
    const people = client.db(dbName).collection<Person>('people');
    const id = new ObjectId();
    const names: unknown[] = [
      'Seeded4999',
      'SEEDED49990',
      'seeded 4999',
      'Kelvin',
      '\u212Aelvin',
      'Mu\u017Ftafa',
      'MUSTAFA',
      'Élodie',
      'élodie',
      'محمد',
      'a.b',
      'axb',
      '+961 70',
      ['x', 'KELVIN', 4999],
      4999,
      null,
      id,
      id.toHexString(),
      new Date(1_700_000_000_000),
      1_700_000_000_000,
      true,
      1,
      1.5,
      { name: 'kelvin' },
    ];
    const docs: Person[] = Array.from({ length: 300 }, (_, n) => ({
      n,
      ...(n % 29 !== 5 && { name: names[n % names.length] }),
      email: `user${n}@example.com`,
      tags: n % 4 ? [`t${n % 3}`, null].slice(0, 1 + (n % 2)) : `t${n % 3}`,
      seen: n % 3 ? null : n % 2 ? [null, 1] : n,
    }));
    await people.insertMany(docs.map((d) => ({ ...d })));
    // A stored regular expression, which a regular expression filter compares as a value.
    await people.insertOne({ n: 300, name: /Kelvin/i });
    await people.insertOne({ n: 301, name: /Kelvin/ });

    const ns = (found: { n: number }[]) => found.map((d) => d.n).sort((a, b) => a - b);
    const find = (filter: object) => people.find(filter).toArray().then(ns);
    const page = (filter: object) =>
      people
        .find(filter, { sort: { n: -1 }, skip: 2, limit: 5 })
        .toArray()
        .then((found) => found.map((d) => d.n));
    // Its documents, its count and a page of them, as FerretDB alone answers: the same filter
    // under `$and`, which it never pushes down.
    const same = async (filter: object) => {
      const own = { $and: [filter] };
      const pushed = await find(filter);
      expect(pushed).toEqual(await find(own));
      expect(await people.countDocuments(filter)).toBe(pushed.length);
      expect(await page(filter)).toEqual(await page(own));
      return pushed;
    };
    const search = (text: string, options = 'i') => {
      const match = { $regex: escapeRegex(text), $options: options };
      return { $or: [{ name: match }, { email: match }] };
    };
    // What MongoDB selects, worked out here: a string, or an array's strings, holding the text.
    const holds = (value: unknown, re: RegExp): boolean =>
      typeof value === 'string'
        ? re.test(value)
        : Array.isArray(value) && value.some((v) => typeof v === 'string' && re.test(v));
    const expected = (text: string, flags: string) => {
      const re = new RegExp(escapeRegex(text), flags);
      return docs.filter((d) => holds(d.name, re) || holds(d.email, re)).map((d) => d.n);
    };

    for (const text of [
      'seeded4999',
      'Kelvin',
      'mustafa',
      'ÉLODIE',
      'محمد',
      'a.b',
      '+961 70',
      'user29',
      '4999',
    ]) {
      const found = await same(search(text));
      expect({ text, found: found.filter((n) => n < 300) }).toEqual({ text, found: expected(text, 'iu') });
    }
    const stored = async (options: string) => (await same(search('Kelvin', options))).filter((n) => n >= 300);
    expect((await same(search('Kelvin', ''))).filter((n) => n < 300)).toEqual(expected('Kelvin', 'u'));
    // FerretDB also selects the stored expression written as the filter's.
    if (ferret) expect([await stored('i'), await stored('')]).toEqual([[300], [301]]);
    // Not literal texts: left to FerretDB, the same answers.
    expect(await same({ $or: [{ name: { $regex: 'k.lvin', $options: 'i' } }, { n: 1 }] })).toEqual(
      [1, ...docs.filter((d) => holds(d.name, /k.lvin/iu)).map((d) => d.n)].sort((a, b) => a - b),
    );
    expect(await same({ $or: [{ name: 'MUSTAFA' }, { n: { $gt: 298 } }] })).toEqual(
      [...docs.filter((d) => d.name === 'MUSTAFA').map((d) => d.n), 299, 300, 301].sort((a, b) => a - b),
    );

    // Lists of scalars: a string is not the ObjectID of the same hex, nor a date its milliseconds.
    const listed = (match: (v: unknown) => boolean) =>
      docs.filter((d) => match(d.name) || (Array.isArray(d.name) && d.name.some(match))).map((d) => d.n);
    expect(await same({ name: { $in: ['Kelvin', 'KELVIN', 4999] } })).toEqual(
      listed((v) => v === 'Kelvin' || v === 'KELVIN' || v === 4999),
    );
    expect(await same({ name: { $in: [id.toHexString()] } })).toEqual(listed((v) => v === id.toHexString()));
    expect(await same({ name: { $in: [id] } })).toEqual(listed((v) => v instanceof ObjectId));
    expect(await same({ name: { $in: [new Date(1_700_000_000_000)] } })).toEqual(
      listed((v) => v instanceof Date),
    );
    expect(await same({ name: { $in: [1, true] } })).toEqual(listed((v) => v === 1 || v === true));
    expect(await same({ tags: { $in: ['t1'] }, n: { $lt: 100 } })).toEqual(
      docs.filter((d) => d.n < 100 && holds(d.tags, /^t1$/)).map((d) => d.n),
    );

    // Null: a missing field, null, or an array holding null.
    const nulls = docs.filter((d) => d.seen === null || (Array.isArray(d.seen) && d.seen.includes(null)));
    // (the two stored expressions have no `seen`)
    expect(await same({ seen: null })).toEqual([...nulls.map((d) => d.n), 300, 301]);
    expect(await same({ seen: { $eq: null }, email: 'user4@example.com' })).toEqual(
      nulls.filter((d) => d.email === 'user4@example.com').map((d) => d.n),
    );
    expect(await same({ name: null })).toEqual(
      docs.filter((d) => d.name === null || !('name' in d)).map((d) => d.n),
    );
    if (!ferret) return;

    const plan = (filter: object) => planOf('people', filter);
    expect(await plan(search('Kelvin'))).toMatch(
      /"Filter":"[^"]*-> 'name'::text\) #>> '\{\}'::text\[\]\) ~ /,
    );
    expect(await plan({ seen: null })).toMatch(/"Filter":"[^"]*'null'::jsonb/);
    expect(await plan({ name: { $in: ['Kelvin'] } })).toMatch(/"Filter":"[^"]*@> ANY /);
  }, 120_000);
});
