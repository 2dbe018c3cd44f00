// The job page's per-stage counts against a real PostgreSQL: targets grouped by the stage they were
// released in and their state, those never released under a null stage.

import { expect } from 'chai';
import pg from 'pg';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations } from '../../../src/persistence/database/migrate.ts';
import { releaseTargetsSql } from '../../../src/persistence/jobs/jobStepSql.ts';
import type { JobControl, JobStore } from '../../../src/projections/jobs/jobStore.ts';
import { createPgJobStore } from '../../../src/persistence/jobs/pgJobStore.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';

const uid = (n: number) => `018f0000-0000-7000-8000-${String(n).padStart(12, '0')}`;

describe('targets by stage (PostgreSQL)', function () {
  this.timeout(30_000);
  let db: TestDatabase;
  let pool: pg.Pool;
  let store: JobStore & JobControl;

  before(async () => {
    db = await createTestDatabase();
    const settings = connectionSettings({ ...db.config, pool_max: 2 });
    await applyServiceMigrations(settings);
    pool = new pg.Pool({ ...settings, max: 2 });
    pool.on('error', () => undefined);
    store = createPgJobStore(pool, { now: () => Date.now() });
  });
  after(async () => {
    await pool.end();
    await db.drop();
  });

  const armed = async (eligible: number, skipped: number) => {
    const job = await store.create({
      filter: '',
      action: 'restart',
      action_config: {},
      submitted_by: 'spec',
    });
    const targets = [
      ...Array.from({ length: eligible }, (_, i) => ({ uid: uid(i), eligible: true, reason: '' })),
      ...Array.from({ length: skipped }, (_, i) => ({ uid: uid(100 + i), eligible: false, reason: 'no' })),
    ];
    const outcome = await store.arm(job.id, {
      actor: 'spec',
      targetMode: 'snapshot',
      dispatchAt: Date.now(),
      targets,
      fromRevision: null,
    });
    expect(outcome.ok).to.equal(true);
    return job.id;
  };

  it('counts released targets under their stage and the others under a null stage', async () => {
    const id = await armed(6, 2);
    await pool.query(releaseTargetsSql(id, 1, 1, Date.now()));
    await pool.query(releaseTargetsSql(id, 2, 2, Date.now()));
    await pool.query(
      `UPDATE job_targets SET state = 'succeeded' WHERE job_id = $1 AND (stage = 1 OR instance_uid = $2)`,
      [id, uid(1)],
    );
    await pool.query(`UPDATE job_targets SET state = 'failed' WHERE job_id = $1 AND instance_uid = $2`, [
      id,
      uid(2),
    ]);
    expect(await store.targetsByStage(id)).to.deep.equal([
      { stage: 1, state: 'succeeded', count: 1 },
      { stage: 2, state: 'failed', count: 1 },
      { stage: 2, state: 'succeeded', count: 1 },
      { stage: null, state: 'pending', count: 3 },
      { stage: null, state: 'skipped', count: 2 },
    ]);
  });

  it('answers no counts for a job without targets', async () => {
    const job = await store.create({
      filter: '',
      action: 'restart',
      action_config: {},
      submitted_by: 'spec',
    });
    expect(await store.targetsByStage(job.id)).to.deep.equal([]);
  });
});
