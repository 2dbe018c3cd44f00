// A job's steps, decided in virtual time (docs/jobs.md): when an armed job starts, how a restart's
// batches grow and its waits back off, how a rollout moves through its stages, when targets time
// out, when a gate trips, and how a job ends. Each step is decideStep on the counts of the step
// before (jobWorld.ts applies the answers as the stepper does with rows).

import { expect } from 'chai';
import { decideStep, stepTickMs, type StepJob } from '../../../src/projections/jobs/decideStep.ts';
import { parseActionSettings } from '../../../src/projections/jobs/jobActions.ts';
import { mayTrip, takesNewcomers, type StepTargets } from '../../../src/projections/jobs/stepTargets.ts';
import { noTargets, type TargetCounts } from '../../../src/projections/jobs/targetCounts.ts';
import { jobWorld, type WorldTarget } from './jobWorld.ts';

const at = 1_700_000_000_000;
const running: StepJob = { id: 'j', status: 'running', stage: 1, stageAt: at, dueAt: at, live: false };
const counts = (over: Partial<TargetCounts> = {}): StepTargets => ({
  counts: {
    byState: noTargets,
    eligible: 0,
    reached: 0,
    failed: 0,
    unhealthy: 0,
    disconnected: 0,
    lastFinishedAt: 0,
    late: 0,
    ...over,
  },
});
const restart = parseActionSettings('restart', {});

describe('a job step', () => {
  describe('lifecycle', () => {
    it('waits for dispatch_at, then starts the job and releases its first batch in the same step', () => {
      const world = jobWorld('restart', {}, 3, { dueInMs: 30_000 });
      world.advance(0);
      expect(world.job.status).to.equal('armed');
      expect(world.decisions[0]).to.deep.include({ moves: [], releases: [], nextMs: 30_000 });
      world.advance(29_999);
      expect(world.job.status).to.equal('armed');
      world.advance(1);
      expect(world.job.status).to.equal('running');
      const [start] = world.decisions[1]!.moves;
      expect(start).to.deep.include({
        command: 'start',
        from: 'armed',
        to: 'running',
        reason: 'dispatch_at reached',
      });
      expect(start!.changes).to.deep.equal({ started_at: at + 30_000, stage_at: at + 30_000 });
      expect(world.releases).to.deep.equal([[1, 1, 30_000]]);
    });

    it('ends a job whose settings no longer parse, saying why', () => {
      const broken = parseActionSettings('restart', { backoff_cap: 'later' });
      const armed = decideStep({ ...running, status: 'armed' }, counts(), broken, at);
      expect(armed.moves.map((m) => [m.command, m.to])).to.deep.equal([
        ['start', 'running'],
        ['fail', 'failed'],
      ]);
      expect(armed.moves[1]!.reason).to.include('backoff_cap must be a duration');
      expect(decideStep(running, counts(), broken, at).moves.map((m) => m.command)).to.deep.equal(['fail']);
      expect(armed.nextMs).to.equal(undefined);
    });

    it('does nothing for a job that is not armed or running', () => {
      for (const status of ['planned', 'paused', 'succeeded', 'failed', 'cancelled'] as const)
        expect(decideStep({ ...running, status }, counts(), restart, at), status).to.deep.equal({
          joins: [],
          moves: [],
          releases: [],
          events: [],
          nextMs: undefined,
        });
    });
  });

  describe('restart', () => {
    it('grows its batches 1, 2, 4 up to batch_size while waits back off 1 s, 2 s, 4 s up to backoff_cap', () => {
      const world = jobWorld('restart', { batch_size: 3, backoff_cap: '3s' }, 10);
      // Every target comes back within 250 ms of its command; the wait runs from its return.
      for (let i = 0; i < 60; i++) {
        world.advance(250);
        world.finish('succeeded');
      }
      expect(world.releases).to.deep.equal([
        [1, 1, 0],
        [2, 2, 1250],
        [3, 3, 3250],
        [4, 3, 6250],
        [5, 1, 9250],
      ]);
      expect(world.job.status).to.equal('succeeded');
    });

    it('waits for every target of a batch before the next, looking again every second', () => {
      const world = jobWorld('restart', { batch_size: 4, backoff_cap: '0s' }, 3);
      world.advance(0);
      world.advance(1000);
      world.finish('succeeded');
      world.advance(1000);
      expect(world.releases.map((r) => r[1])).to.deep.equal([1, 2]);
      world.finish('succeeded', (_, i) => i === 1);
      world.advance(5000);
      expect(world.releases).to.have.length(2);
      expect(world.decisions.at(-1)).to.deep.include({ releases: [], nextMs: stepTickMs });
    });

    it('fails the targets that did not come back within reconnect_timeout, and goes on', () => {
      const world = jobWorld('restart', { reconnect_timeout: '30s', batch_size: 2, backoff_cap: '0s' }, 3);
      world.advance(0);
      world.advance(30_000);
      expect(world.targets[0]!.state).to.equal('in_flight');
      world.advance(1000);
      const late = world.decisions.find((d) => d.timeOut !== undefined)!;
      expect(late.timeOut).to.deep.equal({
        before: at + 1000,
        unsentBefore: at + 1000 - 30_000,
        reason: 'did not come back within reconnect_timeout',
        unsentReason: 'was never sent the restart',
      });
      expect(world.targets[0]!.state).to.equal('failed');
      expect(late.releases).to.deep.equal([{ count: 2, stage: 2 }]);
      world.finish('succeeded');
      world.advance(1000);
      expect(world.job.status).to.equal('failed');
      expect(world.decisions.at(-1)!.moves[0]!.reason).to.equal('1 target(s) failed');
    });

    it('keeps a job recorded with a batch size in backoff_cap running as armed: no wait between batches', () => {
      const world = jobWorld('restart', { backoff_cap: 2 }, 5);
      for (let i = 0; i < 12; i++) {
        world.advance(250);
        world.finish('succeeded');
      }
      expect(world.releases).to.deep.equal([
        [1, 1, 0],
        [2, 2, 1000],
        [3, 2, 2000],
      ]);
    });

    it('succeeds when every target came back or was skipped', () => {
      const world = jobWorld('restart', { backoff_cap: '0s' }, 1, { skipped: 2 });
      world.advance(0);
      world.finish('succeeded');
      world.advance(1000);
      expect(world.decisions.at(-1)!.moves[0]).to.deep.include({
        command: 'succeed',
        reason: 'every target succeeded or was skipped',
      });
      expect(world.decisions.at(-1)!.nextMs).to.equal(undefined);
    });
  });

  describe('config rollout', () => {
    const rollout = (over: Record<string, unknown> = {}) => ({ config: 'edge', revision: 3, ...over });

    it('reaches its first stage at once and each later one when the stage finished and wait passed', () => {
      const world = jobWorld('config_rollout', rollout({ stages: [1, '50%', '100%'], wait: '1m' }), 10);
      world.advance(0);
      expect(world.releases).to.deep.equal([[1, 1, 0]]);
      expect(world.decisions[0]!.stage).to.deep.equal({ stage: 1, note: 'stage 1: 1 more target(s)' });
      world.advance(10_000);
      world.finish('succeeded');
      world.advance(59_000);
      expect(world.releases).to.have.length(1);
      world.advance(1000);
      expect(world.releases).to.deep.equal([
        [1, 1, 0],
        [2, 4, 70_000],
      ]);
      world.finish('succeeded');
      world.advance(60_000);
      expect(world.releases.at(-1)).to.deep.equal([3, 5, 130_000]);
    });

    it('makes its revision current and succeeds when every target finished', () => {
      const world = jobWorld('config_rollout', rollout(), 2);
      world.advance(0);
      world.finish('succeeded');
      world.advance(1000);
      const last = world.decisions.at(-1)!;
      expect(last.makeCurrent).to.deep.equal({ config: 'edge', revision: 3 });
      expect(last.moves[0]).to.deep.include({ command: 'succeed', to: 'succeeded' });
    });

    it('waits for a decision, making nothing current, when targets failed without tripping a gate', () => {
      const world = jobWorld('config_rollout', rollout({ gates: { max_failed: 1 } }), 3);
      world.advance(0);
      world.finish('failed', (_, i) => i === 0);
      world.finish('succeeded');
      world.advance(1000);
      const last = world.decisions.at(-1)!;
      expect(last.makeCurrent).to.equal(undefined);
      expect(last.moves[0]).to.deep.include({
        command: 'hold',
        to: 'awaiting_promotion',
        reason: '1 target(s) failed: revision 3 waits for a decision to promote or roll back',
      });
      expect(last.nextMs, 'it waits for promote or rollback').to.equal(undefined);
      world.advance(60_000);
      expect(world.decisions.at(-1)).to.equal(last);
    });

    it('pauses on its canary failing with the gates the form used to default to (1, 25%, 100%; 10%)', () => {
      // Before: 10% of 1 rounded up to 1 and 1 > 1 was false, so the job went on through every stage.
      const world = jobWorld(
        'config_rollout',
        rollout({ stages: [1, '25%', '100%'], gates: { max_failed: '10%' } }),
        67,
      );
      world.advance(0);
      world.finish('failed');
      world.advance(1000);
      expect(world.job.status).to.equal('paused');
      expect(world.releases, 'only the canary was released').to.deep.equal([[1, 1, 0]]);
      expect(world.decisions.at(-1)!.moves[0]).to.deep.include({
        command: 'trip',
        reason: 'max_failed exceeded in the canary stage: 1 > 0',
      });
    });

    it('pauses on the canary failing even when max_failed would allow it later', () => {
      const world = jobWorld(
        'config_rollout',
        rollout({ stages: [2, '100%'], gates: { max_failed: 1 } }),
        10,
      );
      world.advance(0);
      world.finish('failed', (_, i) => i === 0);
      world.advance(1000);
      expect(world.job.status).to.equal('paused');
      expect(world.decisions.at(-1)!.moves[0]!.gate).to.deep.include({
        gate: 'max_failed',
        limit: 0,
        count: 1,
      });
    });

    describe('resumed after a trip', () => {
      it('goes on past the failures accepted at resume, and pauses again on a new one (canary, then stage 2)', () => {
        // Before: Resume re-checked the gates on the same counts, and the canary paused it again at once.
        const world = jobWorld('config_rollout', rollout({ stages: [1, '50%', '100%'] }), 10);
        world.advance(0);
        world.finish('failed');
        world.advance(1000);
        expect(world.job.status).to.equal('paused');
        world.resume();
        expect(world.job.acknowledged).to.deep.equal({ failed: 1, unhealthy: 0, disconnected: 0 });
        world.advance(0);
        expect(world.job.status, 'the accepted canary failure does not trip it again').to.equal('running');
        expect(world.releases).to.deep.equal([
          [1, 1, 0],
          [2, 4, 1000],
        ]);
        world.finish('failed', (t) => t.uid === 'a3');
        world.finish('succeeded');
        world.advance(1000);
        expect(world.job.status, 'a new failure beyond max_failed 0 pauses it').to.equal('paused');
        expect(world.releases, 'stage 3 was not reached').to.have.length(2);
        const trip = world.decisions.at(-1)!.moves[0]!;
        expect(trip.reason).to.equal('max_failed exceeded: 1 > 0 (new, besides 1 accepted at resume)');
        expect(trip.gate).to.deep.include({ gate: 'max_failed', limit: 0, count: 1, acknowledged: 1 });
      });

      it('counts only new failures against a wider limit, and accepts them all again at the next resume', () => {
        const world = jobWorld(
          'config_rollout',
          rollout({ stages: [2, '100%'], gates: { max_failed: 1 } }),
          10,
        );
        world.advance(0);
        world.finish('failed', (t) => t.uid === 'a0');
        world.advance(1000);
        expect(world.job.status, 'the canary allows none').to.equal('paused');
        world.finish('succeeded');
        world.resume();
        world.advance(0);
        expect(world.releases.at(-1)).to.deep.equal([2, 8, 1000]);
        world.finish('failed', (t) => t.uid === 'a4');
        world.advance(1000);
        expect(world.job.status, '1 new failure is within max_failed 1').to.equal('running');
        world.finish('failed', (t) => t.uid === 'a5');
        world.advance(1000);
        expect(world.job.status).to.equal('paused');
        expect(world.decisions.at(-1)!.moves[0]!.gate).to.deep.include({ count: 2, acknowledged: 1 });
        world.resume();
        expect(world.job.acknowledged).to.deep.include({ failed: 3 });
        world.finish('succeeded');
        world.advance(1000);
        expect(world.job.status, 'every target finished: the failures wait for a decision').to.equal(
          'awaiting_promotion',
        );
      });

      it('accepts unhealthy and disconnected targets seen at resume in the same way', () => {
        const world = jobWorld(
          'config_rollout',
          rollout({ stages: ['100%'], gates: { max_unhealthy: 0 }, wait: '0s' }),
          4,
        );
        world.advance(0);
        world.targets[0]!.unhealthy = true;
        world.poke();
        world.advance(0);
        expect(world.job.status).to.equal('paused');
        world.resume();
        world.advance(0);
        expect(world.job.status).to.equal('running');
        world.targets[1]!.unhealthy = true;
        world.poke();
        world.advance(0);
        expect(world.decisions.at(-1)!.moves[0]!.gate).to.deep.include({
          gate: 'max_unhealthy',
          count: 1,
          acknowledged: 1,
        });
      });
    });

    it('has a max_failed gate of 0 when none is named: the first failure pauses it', () => {
      const world = jobWorld('config_rollout', rollout({ stages: ['100%'] }), 5);
      world.advance(0);
      world.finish('failed', (_, i) => i === 2);
      world.advance(1000);
      expect(world.job.status).to.equal('paused');
      expect(world.decisions.at(-1)!.moves[0]!.gate).to.deep.include({
        gate: 'max_failed',
        limit: 0,
        count: 1,
      });
    });

    it('fails targets that did not apply within apply_timeout, counts them for max_failed and names them', () => {
      const world = jobWorld('config_rollout', rollout({ apply_timeout: '5m', gates: { max_failed: 0 } }), 2);
      world.advance(0);
      world.finish('succeeded', (_, i) => i === 1);
      world.advance(300_000);
      expect(world.job.status).to.equal('running');
      world.advance(1000);
      const trip = world.decisions.at(-1)!;
      expect(trip.timeOut?.reason).to.equal('did not apply within apply_timeout');
      expect(trip.moves[0]).to.deep.include({
        command: 'trip',
        to: 'paused',
        gate: { gate: 'max_failed', limit: 0, count: 1, agents: ['a0'] },
      });
    });

    it('times a connected target out from when it was sent, and one never sent at twice apply_timeout', () => {
      // a0 is sent at its release; a1 and a2 are connected but wait their turn to be sent (a large
      // stage); a1 is sent 30 s later, a2 never; a3 is offline from its release on.
      const config = rollout({ apply_timeout: '1m', gates: { max_failed: '100%' } });
      const world = jobWorld('config_rollout', config, 4);
      const [a0, a1, a2, a3] = world.targets as [WorldTarget, WorldTarget, WorldTarget, WorldTarget];
      a1.held = a2.held = a3.offline = true;
      world.advance(0);
      world.advance(30_000);
      Object.assign(a1, { held: false, sentAt: world.clock.now() });
      world.advance(31_000);
      expect([a0.state, a1.state, a2.state, a3.state], '61 s: a0 sent, a3 offline, 61 s ago').to.deep.equal([
        'failed',
        'in_flight',
        'in_flight',
        'failed',
      ]);
      world.advance(30_000);
      expect([a1.state, a2.state], '91 s: a1 sent 61 s ago').to.deep.equal(['failed', 'in_flight']);
      world.advance(29_000);
      expect(a2.state, '120 s: a2 released twice apply_timeout ago').to.equal('in_flight');
      world.advance(1000);
      expect(a2.state).to.equal('failed');
      expect(world.decisions.filter((d) => d.timeOut !== undefined).length).to.equal(3);
    });

    for (const [gate, key, mark] of [
      ['max_failed', 'max_failed', { state: 'failed' }],
      ['max_unhealthy', 'max_unhealthy', { unhealthy: true }],
      ['max_disconnected', 'max_disconnected', { disconnected: true }],
    ] as const)
      it(`pauses the job when ${gate} is exceeded, and publishes the trip`, () => {
        const world = jobWorld('config_rollout', rollout({ stages: ['100%'], gates: { [key]: '25%' } }), 4);
        world.advance(0);
        Object.assign(world.targets[0]!, mark);
        world.advance(1000);
        expect(world.job.status, 'one of four reached is 25%: not exceeded').to.equal('running');
        Object.assign(world.targets[1]!, mark);
        world.advance(1000);
        expect(world.job.status).to.equal('paused');
        const trip = world.decisions.at(-1)!;
        expect(trip.moves[0]!.changes).to.deep.equal({ paused_at: world.clock.now() });
        expect(trip.moves[0]!.reason).to.equal(`${gate} exceeded: 2 > 1`);
        expect(trip.moves[0]!.gate).to.deep.equal({ gate, limit: 1, count: 2, agents: ['a0', 'a1'] });
        expect(world.published).to.deep.equal([
          { type: 'JobGateTripped', at: world.clock.now(), data: { jobId: 'job-1', gate } },
        ]);
        expect(trip.nextMs, 'a paused job waits for resume').to.equal(undefined);
        expect(world.releases).to.have.length(1);
      });

    describe('offline targets (docs/jobs.md "Stages")', () => {
      const offline = (world: ReturnType<typeof jobWorld>, uids: readonly string[]) => {
        for (const t of world.targets) if (uids.includes(t.uid)) t.offline = true;
      };

      it('does not hold a later stage on targets whose agent is offline while max_disconnected allows as many', () => {
        const stages = [1, '10%', '50%', '100%'];
        const world = jobWorld('config_rollout', rollout({ stages, gates: { max_disconnected: 2 } }), 100);
        world.advance(0);
        offline(world, ['a0']);
        world.advance(20_000);
        expect(world.releases, 'an offline canary holds its stage').to.have.length(1);
        world.finish('succeeded');
        world.advance(1000);
        expect(world.releases.at(-1)).to.deep.equal([2, 9, 21_000]);
        // Stage 2: two agents are gone before they applied; the other seven applied.
        const [x, y] = world.targets.filter((t) => t.state === 'in_flight');
        offline(world, [x!.uid, y!.uid]);
        world.finish('succeeded', (t) => t !== x && t !== y);
        world.advance(1000);
        expect(world.releases.at(-1), 'two offline are within max_disconnected 2').to.deep.equal([
          3, 40, 22_000,
        ]);
        expect([x!.state, y!.state], 'they stay in flight').to.deep.equal(['in_flight', 'in_flight']);
        // Stage 3: one more offline makes three, beyond the gate's 2: the stage waits for them.
        const z = world.targets.find((t) => t.state === 'in_flight' && t.stage === 3)!;
        offline(world, [z.uid]);
        world.finish('succeeded', (t) => t.stage === 3 && t !== z);
        world.advance(5000);
        expect(world.releases, 'three offline hold the stage').to.have.length(3);
        // They come back and apply; the last stage goes out, and one of it goes offline.
        world.finish('succeeded');
        world.advance(1000);
        expect(world.releases.at(-1)).to.deep.equal([4, 50, 28_000]);
        const last = world.targets.find((t) => t.state === 'in_flight')!;
        offline(world, [last.uid]);
        world.finish('succeeded', (t) => t !== last);
        world.advance(5000);
        expect(world.job.status, 'the rollout finishes only when every target has').to.equal('running');
        world.finish('succeeded');
        world.advance(1000);
        expect(world.job.status).to.equal('succeeded');
      });

      it('holds every stage on its offline targets without a max_disconnected gate', () => {
        const world = jobWorld('config_rollout', rollout({ stages: [1, '50%', '100%'] }), 10);
        world.advance(0);
        world.finish('succeeded');
        world.advance(1000);
        const [gone] = world.targets.filter((t) => t.state === 'in_flight');
        offline(world, [gone!.uid]);
        world.finish('succeeded', (t) => t !== gone);
        world.advance(30_000);
        expect(world.releases, 'stage 3 waits for the offline target').to.have.length(2);
      });
    });

    it('does not count a target that disconnected and then applied against max_disconnected', () => {
      const world = jobWorld('config_rollout', rollout({ gates: { max_disconnected: 0 } }), 2);
      world.advance(0);
      Object.assign(world.targets[0]!, { disconnected: true });
      world.finish('succeeded', (_, i) => i === 0);
      world.advance(1000);
      expect(world.job.status).to.equal('running');
    });
  });
  describe('what a step decides on', () => {
    const rollout = { config: 'edge', revision: 3, gates: { max_failed: 0 } };

    it('records at most 20 of the agents behind a tripped gate, in instance_uid order', () => {
      const world = jobWorld('config_rollout', rollout, 30);
      world.advance(0);
      world.finish('failed');
      world.advance(1000);
      const gate = world.decisions.at(-1)!.moves[0]!.gate!;
      expect(gate.count).to.equal(30);
      expect(gate.agents).to.have.length(20);
      expect(gate.agents).to.deep.equal([...gate.agents].sort());
    });

    it('asks who is behind a gate only of a rollout whose gate counts are not all zero', () => {
      const gated = parseActionSettings('config_rollout', rollout);
      const unnamed = parseActionSettings('config_rollout', { config: 'edge', revision: 3 });
      expect(mayTrip(gated, counts().counts)).to.equal(false);
      expect(mayTrip(gated, counts({ late: 1 }).counts)).to.equal(true);
      expect(mayTrip(gated, counts({ disconnected: 1 }).counts)).to.equal(true);
      expect(mayTrip(unnamed, counts().counts)).to.equal(false);
      expect(mayTrip(unnamed, counts({ failed: 3 }).counts), 'max_failed 0 by default').to.equal(true);
      expect(mayTrip(restart, counts({ failed: 3 }).counts)).to.equal(false);
    });

    it('trips without naming agents when none were loaded', () => {
      const gated = parseActionSettings('config_rollout', rollout);
      const seen = counts({ reached: 2, failed: 1, eligible: 2 });
      const trip = decideStep(running, seen, gated, at).moves[0]!;
      expect(trip.gate).to.deep.equal({ gate: 'max_failed', limit: 0, count: 1, agents: [] });
    });
  });

  describe('live targets', () => {
    const newcomer = (uid: string, eligible = true) => ({
      uid,
      eligible,
      reason: eligible ? '' : 'the agent does not accept restart commands',
    });

    it('lets the agents that started matching a running live job join it, and releases them in later batches', () => {
      const world = jobWorld('restart', { batch_size: 10, backoff_cap: '0s' }, 1, { live: true });
      world.advance(0);
      expect(world.releases).to.deep.equal([[1, 1, 0]]);
      world.match([newcomer('a0'), newcomer('b1'), newcomer('b2'), newcomer('c3', false)]);
      world.finish('succeeded');
      world.advance(1000);
      const joinedStep = world.decisions.at(-1)!;
      expect(joinedStep.joins.map((j) => j.uid)).to.deep.equal(['b1', 'b2', 'c3']);
      expect(joinedStep.releases).to.deep.equal([{ count: 2, stage: 2 }]);
      expect(world.targets.map((t) => [t.uid, t.state])).to.deep.equal([
        ['a0', 'succeeded'],
        ['b1', 'in_flight'],
        ['b2', 'in_flight'],
        ['c3', 'skipped'],
      ]);
      world.advance(1000);
      expect(world.decisions.at(-1)!.joins, 'targets already, they join once').to.deep.equal([]);
    });

    it('counts the newcomers in the step they join: a job about to finish goes on for them', () => {
      const world = jobWorld('restart', { backoff_cap: '0s' }, 1, { live: true });
      world.advance(0);
      world.finish('succeeded');
      world.match([newcomer('b1')]);
      world.advance(1000);
      expect(world.job.status).to.equal('running');
      expect(world.releases.at(-1)).to.deep.equal([2, 1, 1000]);
    });

    it('takes no newcomers into a snapshot job, nor into a live job that is not running yet', () => {
      const snapshot = jobWorld('restart', { backoff_cap: '0s' }, 1);
      snapshot.match([newcomer('b1')]);
      snapshot.advance(0);
      snapshot.finish('succeeded');
      snapshot.advance(1000);
      expect(snapshot.decisions.flatMap((d) => d.joins)).to.deep.equal([]);
      expect(snapshot.job.status).to.equal('succeeded');
      const armed = { ...running, status: 'armed' as const, live: true, dueAt: at + 60_000 };
      const waiting = decideStep(armed, { ...counts(), newcomers: [newcomer('b1')] }, restart, at);
      expect(waiting.joins).to.deep.equal([]);
      expect(takesNewcomers({ status: 'running', live: true })).to.equal(true);
      expect(takesNewcomers({ status: 'paused', live: true })).to.equal(false);
    });
  });
});
