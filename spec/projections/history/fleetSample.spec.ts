import { expect } from 'chai';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import type { ConfigState } from '../../../src/projections/remoteConfig/configState.ts';
import {
  createFleetTally,
  historySeries,
  ratePerSecond,
} from '../../../src/projections/history/fleetSample.ts';

const agent = (connected: boolean, health: boolean | null, config: ConfigState) =>
  ({ connected, health: health === null ? null : { healthy: health }, config }) as unknown as AgentState;
const stateOf = (a: AgentState) => (a as unknown as { config: ConfigState }).config;

describe('fleetSample', () => {
  it('counts the fleet as /api/status does, and agents per config state', () => {
    const tally = createFleetTally(stateOf);
    for (const a of [
      agent(true, true, 'applied'),
      agent(true, false, 'failed'),
      agent(false, true, 'pending'),
      agent(true, null, 'unmanaged'),
      agent(true, null, 'applied'),
    ])
      tally.add(a);
    const sample = tally.sample({ messages: 12.5, errors: 0.5 });
    const named = Object.fromEntries(historySeries.map((name, i) => [name, sample[i]]));
    expect(named).to.deep.equal({
      size: 5,
      connected: 4,
      healthy: 2,
      unhealthy: 1,
      unknown: 2,
      pending: 1,
      applying: 0,
      applied: 2,
      failed: 1,
      rolled_back: 0,
      incompatible: 0,
      unsupported: 0,
      messages_per_second: 12.5,
      errors_per_second: 0.5,
    });
  });

  it('gives per-second rates between two readings of a running total', () => {
    expect(ratePerSecond(100, 150, 10_000)).to.equal(5);
    expect(ratePerSecond(100, 100, 10_000)).to.equal(0);
    expect(ratePerSecond(100, 150, 0)).to.equal(0);
    expect(ratePerSecond(150, 100, 10_000)).to.equal(0);
  });
});
