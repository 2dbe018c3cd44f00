// The target observer against a real PostgreSQL, its batches in virtual time: a restarted agent that
// came back to this replica before it read that a sibling had sent the command is judged once it
// reads it, and the outcome is written at the next flush on the scheduler, asking for a step; a
// rollout target's first outcome is the one written, however the events fall into one batch.

import { expect } from 'chai';
import type { AgentEvent } from '../../../src/events/fleetEvent.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import type { DesiredConfig } from '../../../src/projections/remoteConfig/desiredConfig.ts';
import { claimCommandSql, inFlightSql } from '../../../src/persistence/jobs/jobAgentsSql.ts';
import { targetsByAgent } from '../../../src/persistence/jobs/jobTargetRows.ts';
import { walkSlice } from '../../../src/io/nextTurn.ts';
import { releaseTargetsSql, timeOutTargetsSql } from '../../../src/persistence/jobs/jobStepSql.ts';
import { createTargetObserver, type TargetObserver } from '../../../src/persistence/jobs/targetObserver.ts';
import { connected, uid as agentUid } from '../../support/events.ts';
import { VirtualClock } from '../../support/virtualTime.ts';
import { openJobStore, type JobStoreFixture } from './jobStoreFixture.ts';

describe('job target observer (PostgreSQL, virtual time)', function () {
  this.timeout(30_000);
  let fixture: JobStoreFixture;
  let clock: VirtualClock;
  let observer: TargetObserver;
  let requested: string[];
  const agent = agentUid(7);

  before(async () => {
    fixture = await openJobStore(2);
  });
  after(() => fixture.close());
  beforeEach(() => {
    clock = new VirtualClock();
    requested = [];
    observer = createTargetObserver({
      pool: fixture.pool,
      scheduler: clock.scheduler,
      agentHere: () => undefined,
      desiredFor: () => undefined,
      requestStep: (jobId) => {
        requested.push(jobId);
        return Promise.resolve();
      },
      logger: silentLogger(),
      flushMs: 200,
    });
  });
  afterEach(() => observer.stop());

  /** An observer of rollout targets whose agent is here and should run `hash`. */
  const rolloutObserver = (hash: string) =>
    createTargetObserver({
      pool: fixture.pool,
      scheduler: clock.scheduler,
      agentHere: () => ({ availableComponents: null }) as unknown as AgentState,
      desiredFor: () => ({ hash }) as DesiredConfig,
      requestStep: (jobId) => {
        requested.push(jobId);
        return Promise.resolve();
      },
      logger: silentLogger(),
      flushMs: 200,
    });

  /** A running job whose one target (the agent) is released now: a restart, or a rollout of `config`. */
  async function released(config?: string): Promise<string> {
    const { store, pool } = fixture;
    const job = await store.create({
      filter: '',
      action: config === undefined ? 'restart' : 'config_rollout',
      action_config: config === undefined ? {} : { config, revision: 2 },
      submitted_by: 'spec',
    });
    await store.arm(job.id, {
      actor: 'spec',
      targetMode: 'snapshot',
      dispatchAt: 0,
      targets: [{ uid: agent, eligible: true, reason: '' }],
      fromRevision: config === undefined ? null : 1,
    });
    await pool.query("UPDATE jobs SET status = 'running' WHERE id = $1", [job.id]);
    await pool.query(releaseTargetsSql(job.id, 1, 1, clock.now()));
    return job.id;
  }

  const inFlight = async () =>
    targetsByAgent((await fixture.pool.query<unknown[]>({ ...inFlightSql(), rowMode: 'array' })).rows);
  const targetRow = async (jobId: string) =>
    (
      await fixture.pool.query<{ state: string; finished: number | null }>(
        `SELECT state, (extract(epoch FROM finished_at) * 1000)::float8 AS finished
         FROM job_targets WHERE job_id = $1`,
        [jobId],
      )
    ).rows[0];

  it('walks a large set of targets in slices, letting I/O queued behind it through', async () => {
    const rows = Array.from({ length: 3 * walkSlice }, (_, i) => [
      'job',
      'config_rollout',
      'running',
      agentUid(1000 + i),
      null,
      '0',
      0,
      null,
    ]);
    let done = false;
    const update = observer.update(targetsByAgent(rows)).then(() => (done = true));
    const between = await new Promise<boolean>((resolve) => setImmediate(() => resolve(done)));
    expect(between, 'the update ended before the I/O queued behind it ran').to.equal(false);
    await update;
  });

  it('judges a return seen before the command was known to be sent once it is, at the next flush', async () => {
    const jobId = await released();
    const stale = await inFlight();
    await observer.update(stale);
    // A sibling claims and sends the command; the agent restarts and comes back here.
    const sentAt = clock.now();
    await fixture.pool.query(claimCommandSql(jobId, agent, 'sibling', 0n, sentAt));
    clock.advance(500);
    observer.observe(connected(agent, clock.now()), stale.get(agent)!);
    clock.advance(200);
    await observer.flush();
    expect(await targetRow(jobId), 'not judged without the send time').to.deep.include({
      state: 'in_flight',
    });
    await observer.update(await inFlight());
    clock.advance(200);
    await observer.flush();
    expect(await targetRow(jobId)).to.deep.equal({ state: 'succeeded', finished: sentAt + 500 });
    expect(requested).to.deep.equal([jobId]);
  });

  it('times a rollout target out from when it was sent its config, not from its release', async () => {
    // A stage of many targets: this one is sent the revision 20 s after its release (the service
    // was reaching the others first); an apply_timeout of 15 s counts from then.
    const rollout = rolloutObserver('rev2');
    try {
      const { pool } = fixture;
      const releasedAt = clock.now();
      const jobId = await released('sent-later');
      const flying = await inFlight();
      await rollout.update(flying);
      clock.advance(20_000);
      await rollout.flush();
      const sentAt = clock.now();
      rollout.observe(
        { type: 'AgentRemoteConfigOffered', at: sentAt, data: { uid: agent, hash: 'rev2', configs: [] } },
        flying.get(agent)!,
      );
      clock.advance(200);
      await rollout.flush();
      const sent = await pool.query<{ sent: number }>(
        'SELECT (extract(epoch FROM sent_at) * 1000)::float8 AS sent FROM job_targets WHERE job_id = $1',
        [jobId],
      );
      expect(sent.rows).to.deep.equal([{ sent: sentAt }]);
      expect(requested, 'a sent time alone asks for no step').to.deep.equal([]);
      const timedOut = async (now: number) =>
        (
          await pool.query(
            timeOutTargetsSql(
              jobId,
              { before: now - 15_000, unsentBefore: now - 30_000, now, disconnectAfterMs: 90_000 },
              { reason: 'did not apply within apply_timeout', unsentReason: 'was never sent the revision' },
              now,
            ),
          )
        ).rowCount;
      expect(
        await timedOut(releasedAt + 16_000 + 20_000 - 1000),
        '15 s after the release, 4 s after the send',
      ).to.equal(0);
      expect(await timedOut(sentAt + 15_001), '15 s after the send').to.equal(1);
    } finally {
      await rollout.stop();
    }
  });

  it("writes a rollout target's first outcome, however many follow it within one flush", async () => {
    // The agent reports FAILED for the revision, then APPLIED for its old config (it rolled back),
    // both before the next flush, as a slow machine batches them: the agent's own reason is kept.
    const rollout = rolloutObserver('bad');
    try {
      const { pool } = fixture;
      const jobId = await released('c');
      const flying = await inFlight();
      await rollout.update(flying);
      const report = (hash: string, status: 'failed' | 'applied', errorMessage = ''): AgentEvent => ({
        type: 'AgentRemoteConfigReported',
        at: clock.now(),
        data: { uid: agent, status: { hash, status, errorMessage } },
      });
      rollout.observe(report('bad', 'failed', 'the agent failed to start'), flying.get(agent)!);
      clock.advance(10);
      rollout.observe(report('good', 'applied'), flying.get(agent)!);
      clock.advance(200);
      await rollout.flush();
      const row = await pool.query<{ state: string; reason: string }>(
        'SELECT state, reason FROM job_targets WHERE job_id = $1',
        [jobId],
      );
      expect(row.rows).to.deep.equal([{ state: 'failed', reason: 'the agent failed to start' }]);
    } finally {
      await rollout.stop();
    }
  });
  it('judges again on a read only the targets that are new or changed, unless what agents should run changed', async () => {
    // The agent reported APPLIED for rev3 while it should run rev2; then its pin moves to rev3.
    let want = 'rev2';
    const rollout = createTargetObserver({
      pool: fixture.pool,
      scheduler: clock.scheduler,
      agentHere: () => ({ availableComponents: null }) as unknown as AgentState,
      desiredFor: () => ({ hash: want }) as DesiredConfig,
      requestStep: () => Promise.resolve(),
      logger: silentLogger(),
      flushMs: 200,
    });
    try {
      const jobId = await released('pinned-later');
      const flying = await inFlight();
      await rollout.update(flying);
      rollout.observe(
        {
          type: 'AgentRemoteConfigReported',
          at: clock.now(),
          data: { uid: agent, status: { hash: 'rev3', status: 'applied', errorMessage: '' } },
        },
        flying.get(agent)!,
      );
      clock.advance(200);
      await rollout.flush();
      want = 'rev3';
      await rollout.update(await inFlight(), false);
      clock.advance(200);
      await rollout.flush();
      expect(await targetRow(jobId), 'the same row is not judged again').to.deep.include({
        state: 'in_flight',
      });
      await rollout.update(await inFlight(), true);
      clock.advance(200);
      await rollout.flush();
      expect(await targetRow(jobId), 'judged again once the pins changed').to.deep.include({
        state: 'succeeded',
      });
    } finally {
      await rollout.stop();
    }
  });
  it("reads each target's disconnect window from its job: a rollout's, its default, none for a restart", async () => {
    const { store, pool } = fixture;
    const windows: Record<string, number> = {};
    for (const [name, action, config] of [
      ['named', 'config_rollout', { config: 'w1', revision: 2, disconnect_window: '45s' }],
      ['default', 'config_rollout', { config: 'w2', revision: 2 }],
      ['restart', 'restart', {}],
    ] as const) {
      const job = await store.create({ filter: '', action, action_config: config, submitted_by: 'spec' });
      await store.arm(job.id, {
        actor: 'spec',
        targetMode: 'snapshot',
        dispatchAt: 0,
        targets: [{ uid: agent, eligible: true, reason: '' }],
        fromRevision: action === 'restart' ? null : 1,
      });
      await pool.query("UPDATE jobs SET status = 'running' WHERE id = $1", [job.id]);
      await pool.query(releaseTargetsSql(job.id, 1, 1, clock.now()));
      const target = (await inFlight()).get(agent)!.find((t) => t.jobId === job.id)!;
      windows[name] = target.disconnectWindowMs;
      await pool.query("UPDATE jobs SET status = 'cancelled' WHERE id = $1", [job.id]);
    }
    expect(windows).to.deep.equal({ named: 45_000, default: 120_000, restart: 0 });
  });
});
