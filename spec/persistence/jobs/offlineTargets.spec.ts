// A rollout step's offline and late targets against a real PostgreSQL (docs/jobs.md "Stages",
// `apply_timeout`). Offline: of the targets in flight and not late, those whose agent no replica
// holds connected now, read from the session rows as a fleet list reads them (rule 10):
// disconnected, stale, or with no session at all. Late: sent too long ago, or never sent and
// released too long ago while offline, or twice as long ago while connected; the step's counts, the
// gate's list and the time-out agree on which.

import { expect } from 'chai';
import type pg from 'pg';
import { targetCountsSql } from '../../../src/persistence/jobs/jobSql.ts';
import {
  behindGatesSql,
  offlineTargetsSql,
  releaseTargetsSql,
  timeOutTargetsSql,
} from '../../../src/persistence/jobs/jobStepSql.ts';
import { openJobStore, targetUid as uid, type JobStoreFixture } from './jobStoreFixture.ts';

describe('offline and late rollout targets (PostgreSQL)', function () {
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

  let configs = 0;
  /** An armed rollout (of a config of its own) of the agents `ns`, every one released `at`. */
  async function released(ns: readonly number[], at: number): Promise<string> {
    configs += 1;
    const job = await fixture.store.create({
      filter: '',
      action: 'config_rollout',
      action_config: { config: `c${configs}`, revision: 2 },
      submitted_by: 'spec',
    });
    await fixture.store.arm(job.id, {
      actor: 'spec',
      targetMode: 'snapshot',
      dispatchAt: 0,
      targets: ns.map((n) => ({ uid: uid(n), eligible: true, reason: '' })),
      fromRevision: 1,
    });
    await pool.query(releaseTargetsSql(job.id, ns.length, 1, at));
    return job.id;
  }

  it('counts the in-flight targets whose agent is disconnected, stale or unknown, not the late ones', async () => {
    await session(0, true, 1_000); // connected, fresh
    await session(1, false, 1_000); // disconnected
    await session(2, true, threshold + 1_000); // connected as written, but no replica refreshed it
    // uid(3): no agent row at all (a target whose agent was purged)
    await session(4, false, 1_000); // disconnected, but its target is late (counted by the timeout)
    await session(5, false, 1_000); // disconnected, but its target finished
    const jobId = await released([0, 1, 2, 3, 4, 5], now - 5_000);
    await pool.query(`UPDATE job_targets SET sent_at = $2 WHERE job_id = $1 AND instance_uid = $3`, [
      jobId,
      new Date(now - 60_000),
      uid(4),
    ]);
    await pool.query(`UPDATE job_targets SET state = 'succeeded' WHERE job_id = $1 AND instance_uid = $2`, [
      jobId,
      uid(5),
    ]);
    const offline = async (lateBefore: number) =>
      (
        await pool.query<unknown[]>({
          ...offlineTargetsSql(jobId, {
            before: lateBefore,
            unsentBefore: lateBefore - 15_000,
            now,
            disconnectAfterMs: threshold,
          }),
          rowMode: 'array',
        })
      ).rows[0]?.[0];
    // Late is in flight since before 15 s ago: uid(4), sent 60 s ago, is late; 1, 2 and 3 are offline.
    expect(await offline(now - 15_000)).to.equal(3);
    // With a timeout longer than a minute none is late, and uid(4) counts too.
    expect(await offline(now - 120_000)).to.equal(4);
  });

  it('times out a target sent too long ago, and one never sent only while offline or past twice the timeout', async () => {
    const late = { before: now - 15_000, unsentBefore: now - 30_000, now, disconnectAfterMs: threshold };
    for (const n of [10, 11, 12, 16]) await session(n, true, 1_000);
    await session(13, false, 1_000);
    await session(14, true, threshold + 1_000);
    await session(17, false, 1_000);
    // uid(15): no agent row
    const jobId = await released([10, 11, 12, 13, 14, 15, 16, 17], now - 20_000);
    const set = (n: number, column: string, agoMs: number) =>
      pool.query(`UPDATE job_targets SET ${column} = $3 WHERE job_id = $1 AND instance_uid = $2`, [
        jobId,
        uid(n),
        new Date(now - agoMs),
      ]);
    await set(10, 'sent_at', 20_000); // sent 20 s ago, not applied: late
    await set(11, 'sent_at', 5_000); // sent 5 s ago: not late
    // 12: connected, never sent, released 20 s ago: waiting its turn, not late (late before)
    // 13, 14, 15: never sent, released 20 s ago, offline (disconnected, stale, unknown): late
    await set(16, 'dispatched_at', 40_000); // connected, never sent for 40 s: past twice the timeout
    await set(17, 'dispatched_at', 5_000); // offline, released 5 s ago: not late yet
    const rows = async (sql: { text: string; values: unknown[] }) =>
      (await pool.query<unknown[]>({ ...sql, rowMode: 'array' })).rows;
    const lateUids = [10, 13, 14, 15, 16].map(uid);

    const inFlight = (await rows(targetCountsSql(jobId, late))).find((r) => r[0] === 'in_flight')!;
    expect(inFlight[5], 'late in the step counts').to.equal(lateUids.length);
    expect((await rows(behindGatesSql(jobId, late)))[0]![0], 'behind max_failed').to.deep.equal(lateUids);
    expect((await rows(offlineTargetsSql(jobId, late)))[0]![0], 'offline and not late').to.equal(1);

    const reasons = { reason: 'did not apply', unsentReason: 'never sent' };
    await pool.query(timeOutTargetsSql(jobId, late, reasons, now));
    const failed = await pool.query<{ instance_uid: string; reason: string }>(
      `SELECT instance_uid, reason FROM job_targets WHERE job_id = $1 AND state = 'failed' ORDER BY instance_uid`,
      [jobId],
    );
    expect(failed.rows).to.deep.equal([
      { instance_uid: uid(10), reason: 'did not apply' },
      ...[13, 14, 15, 16].map((n) => ({ instance_uid: uid(n), reason: 'never sent' })),
    ]);
  });
});
