// The own-telemetry offer rule through decideAgent and evolveAgent: what an agent is sent, message
// after message (each message carries its own time; nothing waits).

import { expect } from 'chai';
import type { ConnectionSettingsStatus, Session } from '../../../src/events/agentData.ts';
import type { AgentMessage } from '../../../src/projections/agent/agentMessage.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { decideAgent, decideCommand, type Decision } from '../../../src/projections/agent/decideAgent.ts';
import { evolveAgent } from '../../../src/projections/agent/evolveAgent.ts';
import {
  compileOwnTelemetry,
  type OwnTelemetryFor,
} from '../../../src/projections/ownTelemetry/ownTelemetry.ts';
import { messageOf } from '../../support/agentFixture.ts';
import { session, uid } from '../../support/events.ts';

const a = uid(6);
const ReportsOwnMetrics = 0x40n;
const ReportsConnectionSettingsStatus = 0x8000n;
const capable = 0x1n | ReportsOwnMetrics | 0x400n;
const offersTo = (endpoint: string): OwnTelemetryFor =>
  compileOwnTelemetry([{ selector: 'env=prod', metrics: { endpoint } }])!;
const v1 = offersTo('http://one/v1/metrics');
const v2 = offersTo('http://two/v1/metrics');

class Conversation {
  state: AgentState | undefined;
  seq = 0n;
  at = 1000;
  offers: OwnTelemetryFor | undefined = v1;
  session: Session = session(1);
  moved = false;
  readonly capabilities: bigint;
  constructor(capabilities = capable) {
    this.capabilities = capabilities;
  }

  send(over: Partial<AgentMessage> = {}, command?: 'restart'): Decision {
    const first = this.state === undefined;
    const message = messageOf(a, {
      sequenceNum: this.seq++,
      capabilities: this.capabilities,
      description: first ? { identifying: { env: 'prod' }, nonIdentifying: {} } : undefined,
      ...over,
    });
    const decision = decideAgent(this.state, message, {
      at: (this.at += 1000),
      session: this.session,
      newConnection: this.moved,
      requiredAttributes: [],
      ownTelemetryFor: this.offers,
      command,
    });
    for (const e of decision.events) this.state = evolveAgent(this.state, e);
    this.moved = false;
    return decision;
  }
  report(hash: string, status: ConnectionSettingsStatus['status']): Decision {
    return this.send({
      connectionSettingsStatus: { hash, status, errorMessage: status === 'failed' ? 'no such exporter' : '' },
    });
  }
  reconnect(): void {
    this.state = evolveAgent(this.state, {
      type: 'AgentDisconnected',
      at: (this.at += 1000),
      data: { uid: a, reason: 'connection_closed' },
    });
  }
}
const sent = (d: Decision) => d.reply.ownTelemetry?.hash;
const hashOf = (offers: OwnTelemetryFor, c: Conversation) => offers(c.state!)!.hash;

describe('offering own telemetry (never in a loop)', () => {
  it('offers once, then not again while in flight, applying, applied or failed', () => {
    const c = new Conversation(capable | ReportsConnectionSettingsStatus);
    const first = c.send();
    const hash = hashOf(v1, c);
    expect(sent(first)).to.equal(hash);
    expect(first.events.map((e) => e.type)).to.include('AgentOwnTelemetryOffered');
    expect(sent(c.send()), 'in flight').to.equal(undefined);
    expect(sent(c.report(hash, 'applying'))).to.equal(undefined);
    expect(sent(c.report(hash, 'applied'))).to.equal(undefined);
    c.reconnect();
    expect(sent(c.send()), 'reported applied: not again on a new connection').to.equal(undefined);
    expect(c.state!.connectionSettingsStatus).to.deep.equal({ hash, status: 'applied', errorMessage: '' });
  });

  it('never offers a hash again after the agent reported it failed, until the settings change', () => {
    const c = new Conversation(capable | ReportsConnectionSettingsStatus);
    c.send();
    const hash = hashOf(v1, c);
    c.report(hash, 'failed');
    c.reconnect();
    expect(sent(c.send())).to.equal(undefined);
    expect(sent(c.report('00ff', 'applied')), 'another hash applied later').to.equal(undefined);
    c.reconnect();
    expect(sent(c.send()), 'failed once: never again').to.equal(undefined);
    c.offers = v2;
    expect(sent(c.send()), 'changed settings').to.equal(hashOf(v2, c));
    expect(sent(c.send())).to.equal(undefined);
  });

  it('offers again on a new connection when the agent never reported the hash (no status reports)', () => {
    const c = new Conversation();
    const hash = sent(c.send());
    expect(hash).to.be.a('string');
    for (let i = 0; i < 5; i++) expect(sent(c.send())).to.equal(undefined);
    c.session = session(2);
    c.moved = true;
    expect(sent(c.send()), 'moved to another WebSocket').to.equal(hash);
    c.reconnect();
    expect(sent(c.send()), 'reconnected').to.equal(hash);
  });

  it('does not treat each plain-HTTP request as a new connection', () => {
    const c = new Conversation();
    c.session = session(10, { transport: 'http' });
    expect(sent(c.send())).to.be.a('string');
    c.session = session(11, { transport: 'http' });
    expect(sent(c.send())).to.equal(undefined);
  });

  it('offers nothing to an agent that does not report its own metrics, nor with no matching entry', () => {
    expect(sent(new Conversation(0x1n).send())).to.equal(undefined);
    const c = new Conversation();
    c.offers = compileOwnTelemetry([{ selector: 'env=dev', metrics: { endpoint: 'http://x' } }]);
    expect(sent(c.send())).to.equal(undefined);
  });

  it('waits for the full state it asks for, leaves a command alone and sends nothing to a departing agent', () => {
    const c = new Conversation();
    const undescribed = c.send({ description: undefined });
    expect(undescribed.reply.reportFullState).to.equal(true);
    expect(sent(undescribed)).to.equal(undefined);
    const restart = c.send({ description: { identifying: { env: 'prod' }, nonIdentifying: {} } }, 'restart');
    expect(restart.reply.command).to.equal('restart');
    expect(sent(restart)).to.equal(undefined);
    expect(decideCommand(c.state, 'restart', c.at)?.reply.ownTelemetry).to.equal(undefined);
    expect(sent(c.send({ disconnect: true }))).to.equal(undefined);
  });
});
