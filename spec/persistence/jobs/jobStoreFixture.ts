// A job store on a fresh database with the service's migrations (real PostgreSQL), for specs that
// exercise the store's SQL directly.

import pg from 'pg';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations } from '../../../src/persistence/database/migrate.ts';
import { createPgJobStore } from '../../../src/persistence/jobs/pgJobStore.ts';
import type { JobControl, JobStore } from '../../../src/projections/jobs/jobStore.ts';
import { createTestDatabase } from '../../support/postgres.ts';

export interface JobStoreFixture {
  readonly pool: pg.Pool;
  readonly store: JobStore & JobControl;
  close(): Promise<void>;
}

export const targetUid = (n: number) => `018f0000-0000-7000-8000-${String(n).padStart(12, '0')}`;

export async function openJobStore(poolMax = 2): Promise<JobStoreFixture> {
  const db = await createTestDatabase();
  const settings = connectionSettings({ ...db.config, pool_max: poolMax });
  await applyServiceMigrations(settings);
  const pool = new pg.Pool({ ...settings, max: poolMax });
  pool.on('error', () => undefined);
  return {
    pool,
    store: createPgJobStore(pool, { now: () => Date.now() }),
    async close() {
      await pool.end();
      await db.drop();
    },
  };
}
