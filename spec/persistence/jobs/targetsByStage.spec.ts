// The job page's per-stage counts against a real PostgreSQL: targets grouped by the stage they were
// released in and their state, those never released under a null stage.

import { expect } from 'chai';
import type pg from 'pg';
import { releaseTargetsSql } from '../../../src/persistence/jobs/jobStepSql.ts';
import type { JobControl, JobStore } from '../../../src/projections/jobs/jobStore.ts';
import { openJobStore, targetUid as uid, type JobStoreFixture } from './jobStoreFixture.ts';

describe('targets by stage (PostgreSQL)', function () {
  this.timeout(30_000);
  let fixture: JobStoreFixture;
  let pool: pg.Pool;
  let store: JobStore & JobControl;

  before(async () => {
    fixture = await openJobStore(2);
    ({ store, pool } = fixture);
  });
  after(() => fixture.close());

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
