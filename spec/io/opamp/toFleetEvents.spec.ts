import { expect } from 'chai';
import { decodeAgentToServer, encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { toFleetEvents } from '../../../src/io/opamp/toFleetEvents.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { evolveAgent } from '../../../src/projections/agent/evolveAgent.ts';
import { description } from '../../support/agentClient.ts';
import { session, uid } from '../../support/events.ts';

const a = uid(1);
const ctx = { uid: a, at: 1000, session: session(), requiredAttributes: ['env', 'team'] };
const decode = (fields: Record<string, unknown>) =>
  decodeAgentToServer(encodeAgentToServer({ capabilities: 1, ...fields }));
const types = (t: ReturnType<typeof toFleetEvents>) => t.events.map((e) => e.type);

function known(connected = true): AgentState {
  const t = toFleetEvents(decode({ agentDescription: description({ env: 'x' }) }), undefined, ctx);
  let s = t.events.reduce<AgentState | undefined>(evolveAgent, undefined)!;
  if (!connected)
    s = evolveAgent(s, { type: 'AgentDisconnected', at: 1, data: { uid: a, reason: 'connection_closed' } })!;
  return s;
}

describe('AgentToServer to events', () => {
  it('connects an unknown agent, then checks it in, then reports, then compliance, in that order', () => {
    const t = toFleetEvents(
      decode({
        agentDescription: description({ 'service.name': 'c' }),
        health: { healthy: true },
        effectiveConfig: { configMap: { configMap: { '': { body: Buffer.from('a: 1') } } } },
        packageStatuses: { packages: {} },
      }),
      undefined,
      ctx,
    );
    expect(types(t)).to.deep.equal([
      'AgentConnected',
      'AgentCheckedIn',
      'AgentStatusReported',
      'AgentHealthReported',
      'AgentEffectiveConfigReported',
      'AgentPackageStatusesReported',
      'AgentComplianceChanged',
    ]);
  });

  it('turns a heartbeat of a connected agent into a check-in only', () => {
    expect(types(toFleetEvents(decode({ sequenceNum: 2 }), known(), ctx))).to.deep.equal(['AgentCheckedIn']);
  });

  it('connects a disconnected agent again on its next message', () => {
    expect(types(toFleetEvents(decode({}), known(false), ctx))).to.deep.equal([
      'AgentConnected',
      'AgentCheckedIn',
    ]);
  });

  it('publishes a compliance change only when the missing set or conflicts change', () => {
    const agent = known();
    expect(agent.missingAttributes).to.deep.equal(['team']);
    const same = toFleetEvents(decode({ agentDescription: description({ env: 'y' }) }), agent, ctx);
    expect(types(same)).to.not.include('AgentComplianceChanged');
    const changed = toFleetEvents(
      decode({ agentDescription: description({ env: 'y', team: 't', healthy: 'no' }) }),
      agent,
      ctx,
    );
    const event = changed.events.find((e) => e.type === 'AgentComplianceChanged');
    expect(event?.data).to.deep.include({
      missing: [],
      conflicts: ['healthy'],
      newlyMissing: [],
      newlyConflicting: ['healthy'],
    });
  });

  it('keeps sequence numbers and capabilities exact beyond 2^53', () => {
    const t = toFleetEvents(
      decode({ sequenceNum: '18446744073709551615', capabilities: '9007199254740993' }),
      known(),
      ctx,
    );
    expect(t.sequenceNum).to.equal(18446744073709551615n);
    expect(t.capabilities).to.equal(9007199254740993n);
  });

  it('notes agent_disconnect and which sub-messages were present', () => {
    const t = toFleetEvents(decode({ agentDisconnect: {}, health: { healthy: false } }), known(), ctx);
    expect(t.disconnecting).to.equal(true);
    expect(t.present).to.deep.equal({
      description: false,
      health: true,
      effectiveConfig: false,
      remoteConfigStatus: false,
      packageStatuses: false,
    });
  });
});
