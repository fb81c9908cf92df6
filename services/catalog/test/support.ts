import { ObjectStore, signSession, type Role } from '@raseed/kit';
import { dropDatabase, openDatabase, testEnv, uniqueName } from '@raseed/kit/testing';
import { Types } from 'mongoose';
import path from 'node:path';
import supertest from 'supertest';
import { startSupplierSim } from '../../../infra/supplier-sim/src';
import { loadCatalogConfig } from '../src/config';
import { startCatalog } from '../src/service';

export const IMAGE = path.join(__dirname, '..', '..', 'payments', 'test', 'fixtures', 'receipt.png');

/** The catalog service on its own database, synced from a supplier simulator of its own. */
export async function startTestCatalog(extra: Record<string, string> = {}) {
  const sim = await startSupplierSim();
  const config = loadCatalogConfig(
    // An admin's sync waits for its job long enough for a slow machine (a test asks for less).
    testEnv('catalog', {
      SUPPLIER_URL: sim.url,
      SUPPLIER_TIMEOUT_MS: '2000',
      CATALOG_SYNC_WAIT_SECONDS: '300',
      ...extra,
    }),
  );
  const service = await startCatalog(config);
  const db = await openDatabase(config.MONGO_DB);
  const objects = new ObjectStore(config, config.S3_BUCKET);
  const http = () => supertest(service.url);

  function token(role: Role = 'user') {
    const id = new Types.ObjectId().toString();
    const username = uniqueName(role);
    return {
      id,
      token: `Bearer ${signSession(
        { id, username, email: `${username}@example.com`, role, phone: '70000000', percentage: null },
        config.JWT_SECRET,
        3600,
      )}`,
    };
  }

  return {
    config,
    service,
    sim,
    db,
    http,
    objects,
    token,
    /** Runs a supplier sync now, as an admin would, and answers its result. */
    async sync(admin: string) {
      const res = await http().post('/api/catalog/sync').set('Authorization', admin);
      return res;
    },
    async stop() {
      await service.stop();
      await sim.stop();
      await db.close();
      await dropDatabase(config.MONGO_DB);
    },
  };
}

export type TestCatalog = Awaited<ReturnType<typeof startTestCatalog>>;
