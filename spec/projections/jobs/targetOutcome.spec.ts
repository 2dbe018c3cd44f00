import { expect } from 'chai';
import type { AgentEvent } from '../../../src/events/fleetEvent.ts';
import {
  restartChange,
  rolloutChange,
  type InFlightTarget,
} from '../../../src/projections/jobs/targetOutcome.ts';
import { health } from '../../support/agentFixture.ts';
import { connected, session, uid } from '../../support/events.ts';

const a = uid(1);
const restart: InFlightTarget = {
  jobId: 'j',
  action: 'restart',
  sentAt: 10_000,
  baselineStartNanos: 5_000_000_000n,
  assignedAt: 9_000,
};
const healthAt = (at: number, startMs: number, healthy = true): AgentEvent => ({
  type: 'AgentHealthReported',
  at,
  data: { uid: a, health: health(healthy, { startTimeNanos: BigInt(startMs) * 1_000_000n }) },
});

describe('job target outcomes', () => {
  it('sees a restarted agent back when it connects again, or reports a later start time', () => {
    expect(restartChange(restart, connected(a, 9_999, session()))).to.equal(undefined);
    expect(restartChange(restart, connected(a, 10_500, session()))).to.deep.equal({ kind: 'succeeded' });
    expect(restartChange(restart, healthAt(11_000, 5_000))).to.equal(undefined);
    expect(restartChange(restart, healthAt(11_000, 10_400))).to.deep.equal({ kind: 'succeeded' });
    expect(restartChange({ ...restart, sentAt: null }, connected(a, 20_000, session()))).to.equal(undefined);
  });

  it('finishes a rollout target on the report of its desired hash, and notes health and disconnects', () => {
    const target = { ...restart, action: 'config_rollout' as const, sentAt: null, assignedAt: 10_000 };
    const report = (hash: string, status: 'applied' | 'failed' | 'applying'): AgentEvent => ({
      type: 'AgentRemoteConfigReported',
      at: 11_000,
      data: { uid: a, status: { hash, status, errorMessage: status === 'failed' ? 'bad exporter' : '' } },
    });
    expect(rolloutChange(target, report('h2', 'applied'), 'h2', 60_000)).to.deep.equal({ kind: 'succeeded' });
    expect(rolloutChange(target, report('h2', 'failed'), 'h2', 60_000)).to.deep.equal({
      kind: 'failed',
      reason: 'bad exporter',
    });
    expect(rolloutChange(target, report('h1', 'applied'), 'h2', 60_000), 'the old hash').to.equal(undefined);
    expect(rolloutChange(target, report('h2', 'applying'), 'h2', 60_000)).to.equal(undefined);
    expect(rolloutChange(target, healthAt(12_000, 0, false), 'h2', 60_000)).to.deep.equal({
      kind: 'unhealthy',
    });
    const gone = (at: number): AgentEvent => ({
      type: 'AgentDisconnected',
      at,
      data: { uid: a, reason: 'connection_closed' },
    });
    expect(rolloutChange(target, gone(70_000), 'h2', 60_000)).to.deep.equal({ kind: 'disconnected' });
    expect(rolloutChange(target, gone(70_001), 'h2', 60_000), 'after the window').to.equal(undefined);
  });
});
