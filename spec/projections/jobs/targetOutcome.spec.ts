// What an agent's events say about the job target it is (docs/jobs.md "Outcomes"): given the events
// folded with evolveSeen, when decideObservation looks at a target, then it sees what is written.

import { expect } from 'chai';
import type { AgentEvent } from '../../../src/events/fleetEvent.ts';
import {
  decideObservation,
  evolveSeen,
  nothingSeen,
  type InFlightTarget,
  type SeenFacts,
} from '../../../src/projections/jobs/targetOutcome.ts';
import { health } from '../../support/agentFixture.ts';
import { checkedIn, connected, session, uid } from '../../support/events.ts';

const a = uid(1);
const restart: InFlightTarget = {
  jobId: 'j',
  action: 'restart',
  sentAt: 10_000,
  baselineStartNanos: 5_000_000_000n,
  assignedAt: 9_000,
  disconnectWindowMs: 0,
};
const rollout: InFlightTarget = {
  ...restart,
  action: 'config_rollout',
  sentAt: null,
  assignedAt: 10_000,
  disconnectWindowMs: 60_000,
};
const healthAt = (at: number, startMs: number, healthy = true): AgentEvent => ({
  type: 'AgentHealthReported',
  at,
  data: { uid: a, health: health(healthy, { startTimeNanos: BigInt(startMs) * 1_000_000n }) },
});
const report = (at: number, hash: string, status: 'applied' | 'failed' | 'applying'): AgentEvent => ({
  type: 'AgentRemoteConfigReported',
  at,
  data: { uid: a, status: { hash, status, errorMessage: status === 'failed' ? 'bad exporter' : '' } },
});
const gone = (at: number): AgentEvent => ({
  type: 'AgentDisconnected',
  at,
  data: { uid: a, reason: 'connection_closed' },
});
const given = (...events: AgentEvent[]): SeenFacts => events.reduce(evolveSeen, nothingSeen);
const none = {
  outcome: null,
  reason: '',
  outcomeAt: null,
  unhealthyAt: null,
  disconnectedAt: null,
  sentAt: null,
};

describe('job target outcomes', () => {
  it('sees a restarted agent back when it connects again after the command', () => {
    expect(decideObservation(restart, given(connected(a, 9_999, session())), undefined)).to.equal(undefined);
    expect(decideObservation(restart, given(connected(a, 10_500, session())), undefined)).to.deep.equal({
      ...none,
      outcome: 'succeeded',
      outcomeAt: 10_500,
    });
  });

  it('sees a polling agent back when it reports a start time later than before and than the command', () => {
    expect(decideObservation(restart, given(healthAt(11_000, 5_000)), undefined)).to.equal(undefined);
    expect(
      decideObservation(restart, given(healthAt(11_000, 9_000)), undefined),
      'before the command',
    ).to.equal(undefined);
    expect(decideObservation(restart, given(healthAt(11_000, 10_400)), undefined)).to.deep.equal({
      ...none,
      outcome: 'succeeded',
      outcomeAt: 11_000,
    });
  });

  it('judges what was seen before it knew the command was sent, once it knows', () => {
    const seen = given(connected(a, 10_500, session()));
    expect(decideObservation({ ...restart, sentAt: null }, seen, undefined)).to.equal(undefined);
    expect(decideObservation(restart, seen, undefined)?.outcome).to.equal('succeeded');
  });

  it('finishes a rollout target on the report of its desired hash', () => {
    expect(decideObservation(rollout, given(report(11_000, 'h2', 'applied')), 'h2')).to.deep.equal({
      ...none,
      outcome: 'succeeded',
      reason: 'applied',
      outcomeAt: 11_000,
    });
    expect(decideObservation(rollout, given(report(11_000, 'h2', 'failed')), 'h2')).to.deep.include({
      outcome: 'failed',
      reason: 'bad exporter',
    });
    expect(decideObservation(rollout, given(report(11_000, 'h1', 'applied')), 'h2'), 'old hash').to.equal(
      undefined,
    );
    expect(decideObservation(rollout, given(report(11_000, 'h2', 'applying')), 'h2')).to.equal(undefined);
  });

  it('fails a rollout target that took its desired hash and went back to an older one', () => {
    const back = given(report(10_500, 'h2', 'applying'), report(11_000, 'h1', 'applied'));
    expect(decideObservation(rollout, back, 'h2')).to.deep.equal({
      ...none,
      outcome: 'failed',
      reason: 'rolled back to h1',
      outcomeAt: 11_000,
    });
    const lost = given(report(10_500, 'h1', 'applied'), report(11_000, 'h1', 'applied'));
    expect(decideObservation(rollout, lost, 'h2'), 'never took h2').to.equal(undefined);
  });

  it('fails a rollout target that lacks a component type the revision names, as of its assignment', () => {
    const missing = { exporters: ['kafka'] };
    expect(decideObservation(rollout, nothingSeen, 'h2', missing)).to.deep.equal({
      ...none,
      outcome: 'failed',
      reason: 'incompatible: lacks exporters/kafka',
      outcomeAt: 10_000,
    });
    const applied = given(report(11_000, 'h2', 'applied'));
    expect(decideObservation(rollout, applied, 'h2', missing)?.outcome, 'what it reports wins').to.equal(
      'succeeded',
    );
    expect(decideObservation(restart, nothingSeen, 'h2', missing), 'a restart').to.equal(undefined);
  });

  it('judges a report made before the pin again once the desired hash is the new one', () => {
    const seen = given(report(11_000, 'h2', 'applied'));
    expect(decideObservation(rollout, seen, 'h1')).to.equal(undefined);
    expect(decideObservation(rollout, seen, 'h2')?.outcome).to.equal('succeeded');
  });

  it('notes a rollout target unhealthy, or lost within the disconnect window, after the assignment', () => {
    expect(decideObservation(rollout, given(healthAt(9_000, 0, false)), 'h2'), 'before').to.equal(undefined);
    expect(decideObservation(rollout, given(healthAt(12_000, 0, false)), 'h2')).to.deep.equal({
      ...none,
      unhealthyAt: 12_000,
    });
    expect(decideObservation(rollout, given(gone(70_000)), 'h2')).to.deep.equal({
      ...none,
      disconnectedAt: 70_000,
    });
    expect(decideObservation(rollout, given(gone(70_001)), 'h2'), 'after the window').to.equal(undefined);
  });

  it('notes when a rollout target was first sent the config it should run, so apply_timeout counts from then', () => {
    const offered = (at: number, hash: string): AgentEvent => ({
      type: 'AgentRemoteConfigOffered',
      at,
      data: { uid: a, hash, configs: [] },
    });
    expect(decideObservation(rollout, given(offered(9_500, 'h2')), 'h2'), 'before the assignment').to.equal(
      undefined,
    );
    expect(decideObservation(rollout, given(offered(12_000, 'h1')), 'h2'), 'another config').to.equal(
      undefined,
    );
    expect(decideObservation(rollout, given(offered(12_000, 'h2')), 'h2')).to.deep.equal({
      ...none,
      sentAt: 12_000,
    });
    expect(
      decideObservation({ ...rollout, sentAt: 12_000 }, given(offered(13_000, 'h2')), 'h2'),
      'already written',
    ).to.equal(undefined);
    expect(decideObservation(restart, given(offered(12_000, 'h2')), 'h2'), 'a restart').to.equal(undefined);
  });

  it('folds only what a target depends on, returning the same facts otherwise', () => {
    const seen = given(connected(a, 1, session()));
    expect(evolveSeen(seen, checkedIn(a, 2))).to.equal(seen);
  });
});
