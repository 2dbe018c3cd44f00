// The offer rule through decideAgent and evolveAgent: what an agent is sent, message after message.

import { expect } from 'chai';
import type { RemoteConfigStatus, Session } from '../../../src/events/agentData.ts';
import type { AgentMessage } from '../../../src/projections/agent/agentMessage.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { decideAgent, decidePush, type Decision } from '../../../src/projections/agent/decideAgent.ts';
import { componentsGraceMs } from '../../../src/projections/agent/availableComponents.ts';
import { evolveAgent } from '../../../src/projections/agent/evolveAgent.ts';
import { configStateOf, keepsLastApplied } from '../../../src/projections/remoteConfig/configState.ts';
import { composeDesired, type DesiredConfig } from '../../../src/projections/remoteConfig/desiredConfig.ts';
import { session, uid } from '../../support/events.ts';

const a = uid(5);
const AcceptsRemoteConfig = 0x2n;
const ReportsAvailableComponents = 0x4000n;
const capable = 0x1n | AcceptsRemoteConfig | 0x1000n;
const desiredOf = (body: string, revision = 1): DesiredConfig =>
  composeDesired([{ name: 'base', revision, body, contentType: 'text/yaml' }])!;
const v1 = desiredOf('a: 1\n');
const v2 = desiredOf('a: 2\n', 2);

class Conversation {
  state: AgentState | undefined;
  seq = 0n;
  desired: DesiredConfig | undefined = v1;
  session: Session = session(1);
  /** The next message opens a connection that did not hold the agent (a move to another WebSocket). */
  moved = false;
  /** When the next message arrives (Unix ms). */
  at = 1000;
  readonly capabilities: bigint;
  constructor(capabilities = capable) {
    this.capabilities = capabilities;
  }

  /** The first message is a full report (a fresh agent reports an unset remote config status). */
  send(over: Partial<AgentMessage> = {}): Decision {
    const first = this.state === undefined;
    const message: AgentMessage = {
      uid: a,
      sequenceNum: this.seq++,
      capabilities: this.capabilities,
      description: first ? { identifying: { env: 'prod' }, nonIdentifying: {} } : undefined,
      health: first
        ? {
            healthy: true,
            startTimeNanos: 0n,
            lastError: '',
            status: '',
            statusTimeNanos: 0n,
            components: {},
          }
        : undefined,
      effectiveConfig: undefined,
      packageStatuses: undefined,
      availableComponents: undefined,
      remoteConfigStatus: first ? { hash: '', status: 'unset', errorMessage: '' } : undefined,
      connectionSettingsStatus: undefined,
      disconnect: false,
      ...over,
    };
    const decision = decideAgent(this.state, message, {
      at: this.at,
      session: this.session,
      newConnection: this.moved,
      requiredAttributes: [],
      desiredFor: () => this.desired,
    });
    for (const e of decision.events) this.state = evolveAgent(this.state, e);
    this.moved = false;
    return decision;
  }
  report(hash: string, status: RemoteConfigStatus['status']): Decision {
    return this.send({
      remoteConfigStatus: { hash, status, errorMessage: status === 'failed' ? 'bad' : '' },
    });
  }
}
const sent = (d: Decision) => d.reply.remoteConfig?.hash;

describe('sending remote configs (never in a loop)', () => {
  it('sends the desired config once, then waits while it is in flight, applying or failed', () => {
    const c = new Conversation();
    expect(sent(c.send())).to.equal(v1.hash);
    expect(c.send().events.map((e) => e.type)).to.deep.equal(['AgentCheckedIn']);
    expect(sent(c.report(v1.hash, 'applying'))).to.equal(undefined);
    expect(sent(c.report(v1.hash, 'failed'))).to.equal(undefined);
    expect(sent(c.send())).to.equal(undefined);
    expect(configStateOf(c.state!, v1)).to.equal('failed');
  });

  it('sends again when the desired config changes, and only the new one', () => {
    const c = new Conversation();
    c.send();
    c.report(v1.hash, 'applied');
    expect(configStateOf(c.state!, v1)).to.equal('applied');
    c.desired = v2;
    expect(configStateOf(c.state!, v2)).to.equal('pending');
    expect(sent(c.send())).to.equal(v2.hash);
    expect(sent(c.send())).to.equal(undefined);
  });

  it('sends again on a new connection, and when the agent reports a hash that is neither desired nor in flight', () => {
    const c = new Conversation();
    c.send();
    c.session = session(2);
    c.moved = true;
    expect(sent(c.send()), 'moved to another WebSocket').to.equal(v1.hash);
    expect(sent(c.report('00ff', 'applied')), 'lost what was sent').to.equal(v1.hash);
    expect(sent(c.report('00ff', 'applied')), 'in flight again').to.equal(v1.hash);
    c.state = evolveAgent(c.state, {
      type: 'AgentDisconnected',
      at: 1,
      data: { uid: a, reason: 'connection_closed' },
    });
    expect(sent(c.send()), 'reconnected').to.equal(v1.hash);
  });

  it('does not treat each plain-HTTP request as a new connection', () => {
    const c = new Conversation();
    c.session = session(10, { transport: 'http' });
    expect(sent(c.send())).to.equal(v1.hash);
    c.session = session(11, { transport: 'http' });
    expect(sent(c.send())).to.equal(undefined);
  });

  it('never sends to an agent without AcceptsRemoteConfig, nor an empty map when nothing targets it', () => {
    const c = new Conversation(0x1n | 0x1000n);
    expect(sent(c.send())).to.equal(undefined);
    expect(configStateOf(c.state!, v1)).to.equal('unsupported');
    const d = new Conversation();
    d.desired = undefined;
    expect(sent(d.send())).to.equal(undefined);
    expect(configStateOf(d.state!, undefined)).to.equal('unmanaged');
  });

  it('waits for the full state it asks for, and sends nothing to a departing agent', () => {
    const c = new Conversation(capable | 0x800n);
    c.send();
    c.seq = 10n;
    const gap = c.send();
    expect(gap.reply.reportFullState).to.equal(true);
    expect(sent(gap)).to.equal(undefined);
    c.desired = v2;
    expect(sent(c.send({ disconnect: true }))).to.equal(undefined);
  });

  it('says an agent no longer targeted keeps what it last applied', () => {
    const c = new Conversation();
    c.send();
    c.report(v1.hash, 'applied');
    expect(keepsLastApplied(c.state!, undefined)).to.equal(true);
    expect(keepsLastApplied(c.state!, v1)).to.equal(false);
  });

  it('pushes to a connected agent only what the rule allows', () => {
    const c = new Conversation();
    c.send();
    c.report(v1.hash, 'applied');
    expect(decidePush(c.state, v1, 2000)).to.equal(undefined);
    const push = decidePush(c.state, v2, 2000);
    expect(push?.events).to.deep.equal([
      {
        type: 'AgentRemoteConfigOffered',
        at: 2000,
        data: { uid: a, hash: v2.hash, configs: [{ name: 'base', revision: 2 }] },
      },
    ]);
    const gone = evolveAgent(c.state, {
      type: 'AgentDisconnected',
      at: 3,
      data: { uid: a, reason: 'agent_disconnect' },
    });
    expect(decidePush(gone, v2, 2000)).to.equal(undefined);
    expect(decidePush(undefined, v2, 2000)).to.equal(undefined);
  });

  describe('an agent that rolls back (it took the offer, then reports an older config APPLIED)', () => {
    /** v1 applied, then v2 offered and acknowledged, then the agent goes back to v1. */
    const rolledBack = (acknowledged: 'applying' | 'failed') => {
      const c = new Conversation();
      c.send();
      c.report(v1.hash, 'applied');
      c.desired = v2;
      expect(sent(c.send())).to.equal(v2.hash);
      c.report(v2.hash, acknowledged);
      return c;
    };

    for (const acknowledged of ['applying', 'failed'] as const)
      it(`is not offered the config again after ${acknowledged.toUpperCase()}, on this connection or the next`, () => {
        const c = rolledBack(acknowledged);
        expect(sent(c.report(v1.hash, 'applied')), 'the rollback report').to.equal(undefined);
        expect(configStateOf(c.state!, v2)).to.equal('rolled_back');
        expect(c.state!.rolledBackFrom).to.equal(v2.hash);
        for (let i = 0; i < 3; i++) expect(sent(c.send()), `check-in ${i}`).to.equal(undefined);
        expect(sent(c.report(v1.hash, 'applied')), 'the same report again').to.equal(undefined);
        c.session = session(3);
        c.moved = true;
        expect(sent(c.send()), 'a new connection').to.equal(undefined);
        expect(decidePush(c.state, v2, 2000), 'a push').to.equal(undefined);
      });

    it('is offered the next config when the desired one changes', () => {
      const c = rolledBack('applying');
      c.report(v1.hash, 'applied');
      const v3 = desiredOf('a: 3\n', 3);
      c.desired = v3;
      expect(configStateOf(c.state!, v3)).to.equal('pending');
      expect(sent(c.send())).to.equal(v3.hash);
      expect(sent(c.report(v3.hash, 'applied'))).to.equal(undefined);
      expect(configStateOf(c.state!, v3)).to.equal('applied');
    });

    it('ends when the agent applies the config it went back from after all', () => {
      const c = rolledBack('applying');
      c.report(v1.hash, 'applied');
      c.report(v2.hash, 'applied');
      expect(c.state!.rolledBackFrom).to.equal(null);
      expect(configStateOf(c.state!, v2)).to.equal('applied');
    });

    it('is not taken for an agent that lost the offer (it never acknowledged it)', () => {
      const c = new Conversation();
      c.send();
      c.report(v1.hash, 'applied');
      c.desired = v2;
      expect(sent(c.send())).to.equal(v2.hash);
      expect(sent(c.report(v1.hash, 'applied')), 'reports the old config again').to.equal(v2.hash);
      expect(c.state!.rolledBackFrom).to.equal(null);
      expect(configStateOf(c.state!, v2)).to.equal('pending');
    });
  });
});

describe('a config naming a component type the agent lacks (never sent)', () => {
  const collector = (exporters: string[]) => ({
    hash: exporters.join(','),
    components: {
      receivers: ['nop', 'otlp'],
      processors: ['batch'],
      exporters,
      extensions: [],
      connectors: [],
    },
  });
  const needsKafka = desiredOf('receivers: {otlp: {}}\nexporters: {kafka/eu: {}, debug: {}}\n', 2);

  it('is not sent while the agent lacks it, and is sent once the agent reports it has it', () => {
    const c = new Conversation();
    c.desired = needsKafka;
    expect(sent(c.send({ availableComponents: collector(['debug']) }))).to.equal(undefined);
    expect(configStateOf(c.state!, needsKafka)).to.equal('incompatible');
    expect(sent(c.send()), 'a check-in').to.equal(undefined);
    c.moved = true;
    expect(sent(c.send()), 'a new connection').to.equal(undefined);
    expect(decidePush(c.state, needsKafka, 2000), 'a push').to.equal(undefined);
    const sentNow = sent(c.send({ availableComponents: collector(['debug', 'kafka']) }));
    expect(sentNow, 'the report that makes it compatible').to.equal(needsKafka.hash);
    expect(configStateOf(c.state!, needsKafka)).to.equal('pending');
  });

  it('waits after connecting for the list the reply asks for, then judges it', () => {
    const c = new Conversation(capable | ReportsAvailableComponents);
    c.desired = needsKafka;
    const first = c.send({ availableComponents: { hash: 'ab', components: {} } });
    expect([sent(first), first.reply.reportAvailableComponents]).to.deep.equal([undefined, true]);
    expect(sent(c.send()), 'a message sent before the answer').to.equal(undefined);
    expect(decidePush(c.state, needsKafka, 1000), 'a push').to.equal(undefined);
    c.at += 1000;
    expect(sent(c.send({ availableComponents: collector(['debug']) })), 'the list: lacks kafka').to.equal(
      undefined,
    );
    expect(configStateOf(c.state!, needsKafka)).to.equal('incompatible');
    const able = collector(['debug', 'kafka']);
    const debugOnly = desiredOf('exporters: {debug: {}}\n', 3);
    c.desired = debugOnly;
    expect(sent(c.send({ availableComponents: able })), 'a config it can run').to.equal(debugOnly.hash);
  });

  it('waits at most componentsGraceMs after connecting for an agent that does not send the list', () => {
    const c = new Conversation(capable | ReportsAvailableComponents);
    c.desired = needsKafka;
    expect(sent(c.send())).to.equal(undefined);
    c.at += componentsGraceMs - 1;
    expect(sent(c.send())).to.equal(undefined);
    c.at += 1;
    expect(sent(c.send())).to.equal(needsKafka.hash);
  });

  it('is sent as before to an agent that has not reported its components, or only their hash', () => {
    const c = new Conversation();
    c.desired = needsKafka;
    expect(sent(c.send({ availableComponents: { hash: 'ab', components: {} } }))).to.equal(needsKafka.hash);
  });

  it('gives way to the next desired config the agent can run', () => {
    const c = new Conversation();
    c.desired = needsKafka;
    c.send({ availableComponents: collector(['debug']) });
    const debugOnly = desiredOf('exporters: {debug: {}}\n', 3);
    c.desired = debugOnly;
    expect(configStateOf(c.state!, debugOnly)).to.equal('pending');
    expect(sent(c.send())).to.equal(debugOnly.hash);
  });
});
