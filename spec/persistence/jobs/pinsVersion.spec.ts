// What the rollout pins depend on, against a real PostgreSQL (jobAgentsSql.ts pinsVersionSql): the
// job agents read the pins (every pinned id) again only when this changed, so it must change with
// every change of the pins (a stage released, the job moving, the config's revision moving past a
// cancelled rollout) and stay the same while targets only finish.

import { expect } from 'chai';
import type pg from 'pg';
import { pinsSql, pinsVersionSql } from '../../../src/persistence/jobs/jobAgentsSql.ts';
import { releaseTargetsSql } from '../../../src/persistence/jobs/jobStepSql.ts';
import { openJobStore, targetUid as uid, type JobStoreFixture } from './jobStoreFixture.ts';

describe('rollout pins version (PostgreSQL)', function () {
  this.timeout(30_000);
  let fixture: JobStoreFixture;
  let pool: pg.Pool;

  before(async () => {
    fixture = await openJobStore(2);
    ({ pool } = fixture);
  });
  after(() => fixture.close());

  const read = async (sql: { text: string; values: unknown[] }) =>
    (await pool.query<unknown[]>({ ...sql, rowMode: 'array' })).rows;
  const version = async () => (await read(pinsVersionSql()))[0]?.[0];
  const pinned = async () => (await read(pinsSql())).map((row) => row[7]);

  it('changes whenever the pins do, and not when targets only finish', async () => {
    const { store } = fixture;
    await pool.query(`INSERT INTO remote_configs (name, current_revision, latest_revision, updated_at)
      VALUES ('edge', 1, 2, now())`);
    for (const revision of [1, 2])
      await pool.query(
        `INSERT INTO remote_config_revisions (name, revision, selector, body, content_type, enabled, body_hash,
           author, created_at, draft) VALUES ('edge', $1, '', 'b', 'text/yaml', true, 'h', 'spec', now(), false)`,
        [revision],
      );
    const job = await store.create({
      filter: '',
      action: 'config_rollout',
      action_config: { config: 'edge', revision: 2, stages: [1, '100%'] },
      submitted_by: 'spec',
    });
    await store.arm(job.id, {
      actor: 'spec',
      targetMode: 'snapshot',
      dispatchAt: 0,
      targets: [0, 1, 2].map((n) => ({ uid: uid(n), eligible: true, reason: '' })),
      fromRevision: 1,
    });
    await pool.query("UPDATE jobs SET status = 'running' WHERE id = $1", [job.id]);
    const seen = [await version()];
    expect(await pinned()).to.deep.equal([]);

    // A stage is released as the stepper does it: the targets and the job's stage in one transaction.
    const release = async (n: number, stage: number, at: number) => {
      await pool.query('BEGIN');
      await pool.query(releaseTargetsSql(job.id, n, stage, at));
      await pool.query(
        'UPDATE jobs SET stage = $2, stage_at = to_timestamp($3::float8 / 1000) WHERE id = $1',
        [job.id, stage, at],
      );
      await pool.query('COMMIT');
    };
    await release(1, 1, 1_000);
    seen.push(await version());
    expect(await pinned()).to.deep.equal([[uid(0)]]);
    await pool.query(`UPDATE job_targets SET state = 'succeeded' WHERE job_id = $1`, [job.id]);
    expect(await version(), 'a target finished: the same pins').to.equal(seen.at(-1));
    await release(2, 2, 2_000);
    seen.push(await version());
    expect(await pinned()).to.deep.equal([[uid(0), uid(1), uid(2)]]);
    await pool.query("UPDATE jobs SET status = 'cancelled' WHERE id = $1", [job.id]);
    seen.push(await version());
    await pool.query("UPDATE remote_configs SET current_revision = 2 WHERE name = 'edge'");
    seen.push(await version());
    expect(await pinned(), 'a later revision released the cancelled rollout').to.deep.equal([]);
    expect(new Set(seen).size, 'each change of the pins changed the version').to.equal(seen.length);
  });
});
