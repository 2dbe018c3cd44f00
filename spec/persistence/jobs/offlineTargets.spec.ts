// A rollout step's offline targets against a real PostgreSQL (docs/jobs.md "Stages"): of the targets
// in flight and not late, those whose agent no replica holds connected now, read from the session
// rows as a fleet list reads them (rule 10): disconnected, stale, or with no session at all.

import { expect } from 'chai';
import type pg from 'pg';
import { offlineTargetsSql, releaseTargetsSql } from '../../../src/persistence/jobs/jobStepSql.ts';
import { openJobStore, targetUid as uid, type JobStoreFixture } from './jobStoreFixture.ts';

describe('offline rollout targets (PostgreSQL)', function () {
  this.timeout(30_000);
  let fixture: JobStoreFixture;
  let pool: pg.Pool;
  const now = Date.parse('2026-11-28T04:00:00Z');
  const threshold = 90_000;

  before(async () => {
    fixture = await openJobStore(2);
    ({ pool } = fixture);
  });
  after(() => fixture.close());

  /** An agent with a session row: connected or not, last written `ageMs` before now. */
  async function session(n: number, connected: boolean, ageMs: number): Promise<void> {
    const at = new Date(now - ageMs);
    await pool.query(
      'INSERT INTO agents (instance_uid, first_seen, last_seen, updated_at) VALUES ($1, $2, $2, $2)',
      [uid(n), at],
    );
    await pool.query(
      `INSERT INTO agent_session (instance_uid, connected, transport, connection_changed_at, updated_at, alive_at)
       VALUES ($1, $2, 'ws', $3, $3, $3)`,
      [uid(n), connected, at],
    );
  }

  it('counts the in-flight targets whose agent is disconnected, stale or unknown, not the late ones', async () => {
    const { store } = fixture;
    await session(0, true, 1_000); // connected, fresh
    await session(1, false, 1_000); // disconnected
    await session(2, true, threshold + 1_000); // connected as written, but no replica refreshed it
    // uid(3): no agent row at all (a target whose agent was purged)
    await session(4, false, 1_000); // disconnected, but its target is late (counted by the timeout)
    await session(5, false, 1_000); // disconnected, but its target finished
    const job = await store.create({
      filter: '',
      action: 'config_rollout',
      action_config: { config: 'c', revision: 2 },
      submitted_by: 'spec',
    });
    await store.arm(job.id, {
      actor: 'spec',
      targetMode: 'snapshot',
      dispatchAt: 0,
      targets: [0, 1, 2, 3, 4, 5].map((n) => ({ uid: uid(n), eligible: true, reason: '' })),
      fromRevision: 1,
    });
    await pool.query(releaseTargetsSql(job.id, 6, 2, now - 5_000));
    await pool.query(`UPDATE job_targets SET sent_at = $2 WHERE job_id = $1 AND instance_uid = $3`, [
      job.id,
      new Date(now - 60_000),
      uid(4),
    ]);
    await pool.query(`UPDATE job_targets SET state = 'succeeded' WHERE job_id = $1 AND instance_uid = $2`, [
      job.id,
      uid(5),
    ]);
    const offline = async (lateBefore: number) =>
      (
        await pool.query<unknown[]>({
          ...offlineTargetsSql(job.id, lateBefore, now, threshold),
          rowMode: 'array',
        })
      ).rows[0]?.[0];
    // Late is in flight since before 15 s ago: uid(4), sent 60 s ago, is late; 1, 2 and 3 are offline.
    expect(await offline(now - 15_000)).to.equal(3);
    // With a timeout longer than a minute none is late, and uid(4) counts too.
    expect(await offline(now - 120_000)).to.equal(4);
  });
});
