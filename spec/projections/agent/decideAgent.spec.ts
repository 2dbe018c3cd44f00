import { expect } from 'chai';
import type { AgentMessage } from '../../../src/projections/agent/agentMessage.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import {
  decideAgent,
  decideCommand,
  decideConnectionClosed,
  decidePush,
  type Decided,
  type DecisionContext,
} from '../../../src/projections/agent/decideAgent.ts';
import type { DesiredConfig } from '../../../src/projections/remoteConfig/desiredConfig.ts';
import { evolveAgent } from '../../../src/projections/agent/evolveAgent.ts';
import { messageOf } from '../../support/agentFixture.ts';
import { session, uid } from '../../support/events.ts';

const a = uid(1);
const ctx: DecisionContext = {
  at: 1000,
  session: session(),
  newConnection: false,
  requiredAttributes: ['env', 'team'],
};
const ReportsStatus = 0x1n;
const ReportsHealth = 0x800n;

const message = (over: Partial<AgentMessage> = {}): AgentMessage =>
  messageOf(a, { capabilities: ReportsStatus, ...over });
const describedAs = (identifying: Record<string, string>) => ({ identifying, nonIdentifying: {} });
const types = (events: readonly { type: string }[]) => events.map((e) => e.type);

/** Given: the state the registry holds after these messages were decided and folded. */
function given(...messages: AgentMessage[]): AgentState | undefined {
  let state: AgentState | undefined;
  for (const m of messages) for (const e of decideAgent(state, m, ctx).events) state = evolveAgent(state, e);
  return state;
}

describe('deciding one agent message', () => {
  it('connects an unknown agent, checks it in, then reports and compliance, in that order', () => {
    const d = decideAgent(
      undefined,
      message({
        description: describedAs({ 'service.name': 'c' }),
        health: {
          healthy: true,
          startTimeNanos: 0n,
          lastError: '',
          status: '',
          statusTimeNanos: 0n,
          components: {},
        },
        effectiveConfig: { '': { body: 'a: 1', contentType: '' } },
        packageStatuses: { packages: {}, serverProvidedAllPackagesHash: '', errorMessage: '' },
      }),
      ctx,
    );
    expect(types(d.events)).to.deep.equal([
      'AgentConnected',
      'AgentCheckedIn',
      'AgentStatusReported',
      'AgentHealthReported',
      'AgentEffectiveConfigReported',
      'AgentPackageStatusesReported',
      'AgentComplianceChanged',
    ]);
    expect(d.reply.reportFullState).to.equal(false);
  });

  it('asks an unknown agent without a description for its full state, from its own fold', () => {
    const d = decideAgent(undefined, message(), ctx);
    expect(types(d.events)).to.deep.equal(['AgentConnected', 'AgentCheckedIn', 'AgentFullStateRequested']);
    expect(d.events.at(-1)?.data).to.deep.include({ reason: 'no_description' });
    expect(d.reply.reportFullState).to.equal(true);
  });

  it('turns the heartbeat of a connected, described agent into a check-in and a plain reply', () => {
    const known = given(message({ description: describedAs({ env: 'x', team: 't' }) }));
    const d = decideAgent(known, message({ sequenceNum: 1n }), ctx);
    expect(types(d.events)).to.deep.equal(['AgentCheckedIn']);
    expect(d.reply.reportFullState).to.equal(false);
  });

  it('connects a disconnected agent again on its next message', () => {
    let known = given(message({ description: describedAs({ env: 'x' }) }));
    known = evolveAgent(known, {
      type: 'AgentDisconnected',
      at: 1,
      data: { uid: a, reason: 'connection_closed' },
    });
    expect(types(decideAgent(known, message({ sequenceNum: 1n }), ctx).events)).to.deep.equal([
      'AgentConnected',
      'AgentCheckedIn',
    ]);
  });

  it('asks for full state after a sequence gap when a promised sub-message is missing', () => {
    const capabilities = ReportsStatus | ReportsHealth;
    const known = given(message({ capabilities, description: describedAs({ env: 'x' }) }));
    const d = decideAgent(known, message({ capabilities, sequenceNum: 5n }), ctx);
    expect(d.reply.reportFullState).to.equal(true);
    expect(d.events.at(-1)).to.deep.include({ type: 'AgentFullStateRequested' });
    expect(d.events.at(-1)?.data).to.deep.include({ reason: 'sequence_gap' });
  });

  it('publishes a compliance change only when the missing set or conflicts change', () => {
    const known = given(message({ description: describedAs({ env: 'x' }) }));
    expect(known?.missingAttributes).to.deep.equal(['team']);
    const same = decideAgent(
      known,
      message({ sequenceNum: 1n, description: describedAs({ env: 'y' }) }),
      ctx,
    );
    expect(types(same.events)).to.not.include('AgentComplianceChanged');
    const changed = decideAgent(
      known,
      message({ sequenceNum: 1n, description: describedAs({ env: 'y', team: 't', healthy: 'no' }) }),
      ctx,
    );
    expect(changed.events.find((e) => e.type === 'AgentComplianceChanged')?.data).to.deep.include({
      missing: [],
      conflicts: ['healthy'],
      newlyMissing: [],
      newlyConflicting: ['healthy'],
    });
  });

  it('ends with the disconnect on agent_disconnect and never asks a departing agent for full state', () => {
    const d = decideAgent(undefined, message({ disconnect: true }), ctx);
    expect(types(d.events)).to.deep.equal(['AgentConnected', 'AgentCheckedIn', 'AgentDisconnected']);
    expect(d.events.at(-1)?.data).to.deep.include({ reason: 'agent_disconnect' });
    expect(d.reply.reportFullState).to.equal(false);
  });

  it('takes a repeated goodbye from an agent already disconnected as nothing: no event, no change', () => {
    const known = given(
      message({ description: describedAs({ env: 'x' }) }),
      message({ sequenceNum: 1n, disconnect: true }),
    );
    expect(known?.connected).to.equal(false);
    const d = decideAgent(known, message({ sequenceNum: 2n, disconnect: true }), ctx);
    expect(d.events).to.deep.equal([]);
    expect(d.state).to.equal(known);
    expect(d.reply.reportFullState).to.equal(false);
  });

  it('asks a new agent whose first message omits a promised part for its full state as unknown_agent', () => {
    const capabilities = ReportsStatus | ReportsHealth;
    const d = decideAgent(undefined, message({ capabilities, description: describedAs({ env: 'x' }) }), ctx);
    expect(d.events.at(-1)).to.deep.include({ type: 'AgentFullStateRequested' });
    expect(d.events.at(-1)?.data).to.deep.include({ reason: 'unknown_agent' });
  });

  it('is pure: the same inputs give the same decision and the known state is not touched', () => {
    const known = given(message({ description: describedAs({ env: 'x' }) }));
    const copy = structuredClone(known);
    const m = message({ sequenceNum: 9n, capabilities: ReportsStatus | ReportsHealth });
    expect(decideAgent(known, m, ctx)).to.deep.equal(decideAgent(known, m, ctx));
    expect(known).to.deep.equal(copy);
  });
  it('leaves the agent as the event-by-event fold of its events: the state the registry keeps', () => {
    const desired: DesiredConfig = {
      key: 'edge@1',
      hash: 'ab'.repeat(32),
      entries: [{ name: 'edge', revision: 1, body: 'a: 1', contentType: '' }],
    };
    const offering = { ...ctx, desiredFor: () => desired };
    const AcceptsRemoteConfig = 0x2n;
    const AcceptsRestartCommand = 0x400n;
    const capabilities = ReportsStatus | AcceptsRemoteConfig | AcceptsRestartCommand;
    const folded = (known: AgentState | undefined, d: Decided) =>
      d.events.reduce<AgentState | undefined>(evolveAgent, known);
    let state: AgentState | undefined;
    const steps: [string, (known: AgentState | undefined) => Decided | undefined][] = [
      ['registration, full state asked', (k) => decideAgent(k, message({ capabilities }), offering)],
      [
        'description and compliance, offer',
        (k) =>
          decideAgent(
            k,
            message({ sequenceNum: 1n, capabilities, description: describedAs({ env: 'x' }) }),
            offering,
          ),
      ],
      [
        'command',
        (k) => decideAgent(k, message({ sequenceNum: 2n, capabilities }), { ...ctx, command: 'restart' }),
      ],
      ['push', (k) => decidePush(k, { ...desired, hash: 'cd'.repeat(32) }, 2000)],
      ['pushed command', (k) => decideCommand(k, 'restart', 2100)],
      ['goodbye', (k) => decideAgent(k, message({ sequenceNum: 3n, capabilities, disconnect: true }), ctx)],
      ['back', (k) => decideAgent(k, message({ sequenceNum: 4n, capabilities }), offering)],
      ['socket closed', (k) => decideConnectionClosed(k, a, 3000)],
    ];
    for (const [name, step] of steps) {
      const d = step(state)!;
      expect(d, name).to.not.equal(undefined);
      expect(d.state, name).to.deep.equal(folded(state, d));
      state = d.state;
    }
    expect(state).to.include({ connected: false });
  });
});
