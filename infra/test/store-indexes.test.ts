import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dropDatabase, MONGO_URL, uniqueName } from '@raseed/kit/testing';
import { MongoClient } from 'mongodb';

/**
 * The local store (FerretDB on PostgreSQL) hands PostgreSQL each equality filter as
 * `_jsonb->'field' @> value`, which its own btree indexes cannot serve: every lookup read the
 * whole table. infra/ferretdb/gin-indexes.patch gives each index on top-level fields a GIN
 * companion that can. Read here from PostgreSQL itself; skipped on a real mongod.
 */
const PG_PORT = '5433'; // as in infra/infra.sh
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

/** Runs SQL on FerretDB's PostgreSQL database (as its account when we are root). */
function sql(query: string): string[] {
  const version = readdirSync('/usr/lib/postgresql').sort().at(-1);
  const psql = `/usr/lib/postgresql/${version}/bin/psql`;
  const args = ['-h', '127.0.0.1', '-p', PG_PORT, '-U', 'postgres', '-d', 'ferretdb', '-tAq', '-c', query];
  const out =
    process.getuid?.() === 0
      ? execFileSync('runuser', ['-u', 'postgres', '--', psql, ...args])
      : execFileSync(psql, args);
  return out.toString().trim().split('\n').filter(Boolean);
}

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
});
