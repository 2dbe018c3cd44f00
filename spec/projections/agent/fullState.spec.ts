import { expect } from 'chai';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { evolveAgent } from '../../../src/projections/agent/evolveAgent.ts';
import { decideFullState, type PresentParts } from '../../../src/projections/agent/fullState.ts';
import { checkedIn, connected, described, uid } from '../../support/events.ts';

const a = uid(1);
const nothing: PresentParts = {
  description: false,
  health: false,
  effectiveConfig: false,
  remoteConfigStatus: false,
  packageStatuses: false,
};
const everything: PresentParts = {
  description: true,
  health: true,
  effectiveConfig: true,
  remoteConfigStatus: true,
  packageStatuses: true,
};
const ReportsStatus = 0x1n;
const ReportsEffectiveConfig = 0x4n;
const ReportsHealth = 0x800n;

function agentAt(sequenceNum: bigint, withDescription = true): AgentState {
  let s = evolveAgent(undefined, connected(a, 1));
  s = evolveAgent(s, checkedIn(a, 1, sequenceNum));
  if (withDescription) s = evolveAgent(s, described(a, 1, { 'service.name': 'x' }));
  return s!;
}

describe('full-state decisions', () => {
  it('asks while the agent has sent no description (rule 18)', () => {
    const after = agentAt(0n, false);
    expect(
      decideFullState(undefined, after, { sequenceNum: 0n, capabilities: ReportsStatus, present: nothing }),
    ).to.equal('no_description');
    expect(
      decideFullState(after, after, { sequenceNum: 1n, capabilities: ReportsStatus, present: nothing }),
    ).to.equal('no_description');
  });

  it('does not ask on a normal in-sequence heartbeat', () => {
    const before = agentAt(4n);
    const caps = ReportsStatus | ReportsHealth | ReportsEffectiveConfig;
    expect(
      decideFullState(before, agentAt(5n), { sequenceNum: 5n, capabilities: caps, present: nothing }),
    ).to.equal(null);
  });

  it('asks after a sequence gap when a promised sub-message is omitted', () => {
    const before = agentAt(4n);
    const caps = ReportsStatus | ReportsEffectiveConfig;
    const present = { ...nothing, description: true };
    expect(decideFullState(before, agentAt(9n), { sequenceNum: 9n, capabilities: caps, present })).to.equal(
      'sequence_gap',
    );
  });

  it('does not ask after a gap when the message carries everything the capabilities promise', () => {
    const before = agentAt(4n);
    const caps = ReportsStatus | ReportsHealth | ReportsEffectiveConfig;
    expect(
      decideFullState(before, agentAt(9n), { sequenceNum: 9n, capabilities: caps, present: everything }),
    ).to.equal(null);
  });

  it('asks an agent the registry did not know for what its first message omits, as unknown_agent', () => {
    const caps = ReportsStatus | ReportsHealth;
    const present = { ...nothing, description: true };
    expect(
      decideFullState(undefined, agentAt(7n), { sequenceNum: 7n, capabilities: caps, present }),
    ).to.equal('unknown_agent');
  });
});
