import { expect } from 'chai';
import { createEventBus } from '../../../src/events/bus.ts';
import type { AgentEvent } from '../../../src/events/fleetEvent.ts';
import { createLivenessSweeper } from '../../../src/projections/liveness/livenessSweeper.ts';
import { livenessThresholds, sweep, sweepIntervalMs } from '../../../src/projections/liveness/sweep.ts';
import { createRegistryProjection } from '../../../src/projections/registry/registryProjection.ts';
import { VirtualClock } from '../../support/virtualTime.ts';
import { agent } from '../../support/agentFixture.ts';
import { checkedIn, connected, session, uid } from '../../support/events.ts';

const t = livenessThresholds(30_000, 3);
const http = session(1, { transport: 'http' });
const kinds = (events: AgentEvent[]) => events.map((e) => `${e.type}:${e.data.uid}`);

describe('liveness sweep', () => {
  it('derives 45 s and 90 s from the defaults and sweeps at least every second', () => {
    expect(t).to.deep.equal({ disconnectAfterMs: 45_000, evictAfterMs: 90_000 });
    expect(sweepIntervalMs(t)).to.equal(1000);
    expect(sweepIntervalMs(livenessThresholds(1000, 3))).to.equal(150);
  });

  it('stops at the first agent within both thresholds when given the longest silent first', () => {
    const at = (n: number, lastSeen: number) => ({ ...agent({ uid: uid(n) }), session: http, lastSeen });
    const oldestFirst = [at(1, 0), at(2, 50_000), at(3, 10_000)];
    // uid(3) is out of order on purpose: a walk that stops at uid(2) never reaches it.
    expect(kinds(sweep(oldestFirst, 60_000, t, { longestSilentFirst: true }))).to.deep.equal([
      `AgentDisconnected:${uid(1)}`,
    ]);
    expect(kinds(sweep(oldestFirst, 60_000, t))).to.deep.equal([
      `AgentDisconnected:${uid(1)}`,
      `AgentDisconnected:${uid(3)}`,
    ]);
  });

  function world() {
    const clock = new VirtualClock(0);
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    const seen: AgentEvent[] = [];
    bus.events$.subscribe((e) => {
      if (e.type === 'AgentDisconnected' || e.type === 'AgentEvicted') seen.push(e);
    });
    const sweeper = createLivenessSweeper({
      bus,
      registry,
      thresholds: t,
      scheduler: clock.scheduler,
      onError: () => {},
    });
    const message = (n: number, s = http) => {
      if (!registry.get(uid(n))?.connected) bus.publish(connected(uid(n), clock.now(), s));
      bus.publish(checkedIn(uid(n), clock.now(), 0n, s));
    };
    return { clock, registry, seen, sweeper, message };
  }

  it('disconnects strictly after 45 s of silence, not at 45 s', () => {
    const agent = { ...stateAt(0) };
    expect(sweep([agent], 45_000, t)).to.deep.equal([]);
    expect(kinds(sweep([agent], 45_001, t))).to.deep.equal([`AgentDisconnected:${uid(1)}`]);
  });

  it('evicts strictly after 90 s, disconnecting first if still connected', () => {
    expect(kinds(sweep([stateAt(0)], 90_000, t))).to.deep.equal([`AgentDisconnected:${uid(1)}`]);
    expect(kinds(sweep([stateAt(0)], 90_001, t))).to.deep.equal([
      `AgentDisconnected:${uid(1)}`,
      `AgentEvicted:${uid(1)}`,
    ]);
    expect(kinds(sweep([{ ...stateAt(0), connected: false }], 90_001, t))).to.deep.equal([
      `AgentEvicted:${uid(1)}`,
    ]);
  });

  it('observes a disconnect within one second of it being due, and never moves last_seen', () => {
    const w = world();
    w.message(1);
    w.clock.advance(45_000);
    expect(w.seen).to.deep.equal([]);
    w.clock.advance(1001);
    expect(kinds(w.seen)).to.deep.equal([`AgentDisconnected:${uid(1)}`]);
    expect(w.registry.get(uid(1))).to.include({ connected: false, lastSeen: 0 });
  });

  it('never flaps an HTTP poller that polls within the threshold', () => {
    const w = world();
    for (let i = 0; i < 20; i++) {
      w.message(1, session(100 + i, { transport: 'http' }));
      w.clock.advance(44_000);
    }
    expect(w.seen).to.deep.equal([]);
    expect(w.registry.get(uid(1))?.connected).to.equal(true);
  });

  it('evicts a disconnected agent and registers it afresh when it comes back', () => {
    const w = world();
    w.message(1);
    w.clock.advance(91_000);
    expect(kinds(w.seen)).to.deep.equal([`AgentDisconnected:${uid(1)}`, `AgentEvicted:${uid(1)}`]);
    expect(w.registry.get(uid(1))).to.equal(undefined);
    w.message(1);
    expect(w.registry.get(uid(1))).to.include({ firstSeen: 91_000, connected: true, description: null });
  });

  it('never disconnects an agent connected directly over a WebSocket, however quiet: its socket says', () => {
    const quiet = { ...stateAt(0), session: session(1, { transport: 'ws' }) };
    expect(sweep([quiet], 10 * 90_000, t)).to.deep.equal([]);
    const w = world();
    w.message(1, session(7, { transport: 'ws' }));
    w.clock.advance(10 * 90_000);
    expect(w.seen).to.deep.equal([]);
    expect(w.registry.get(uid(1))?.connected).to.equal(true);
  });

  it('evicts a WebSocket agent strictly after the threshold counted from its disconnect, and goes on past it', () => {
    const closedAt = 500_000;
    const gone = {
      ...stateAt(0),
      session: session(1, { transport: 'ws' }),
      connected: false,
      connectionChangedAt: closedAt,
    };
    const poller = { ...stateAt(1_000), uid: uid(2), session: http };
    expect(kinds(sweep([gone, poller], closedAt + 90_000, t, { longestSilentFirst: true }))).to.deep.equal([
      `AgentDisconnected:${uid(2)}`,
      `AgentEvicted:${uid(2)}`,
    ]);
    expect(kinds(sweep([gone], closedAt + 90_001, t))).to.deep.equal([`AgentEvicted:${uid(1)}`]);
  });

  it('judges a WebSocket agent by its messages when no socket here holds it', () => {
    const unheld = { ...stateAt(0), session: session(1, { transport: 'ws' }) };
    const heldHere = () => false;
    expect(kinds(sweep([unheld], 45_001, t, { heldHere }))).to.deep.equal([`AgentDisconnected:${uid(1)}`]);
    expect(sweep([unheld], 45_001, t, { heldHere: () => true })).to.deep.equal([]);
  });

  it('keeps the message rule for an agent behind a gateway: the socket answers for the gateway', () => {
    const behind = { ...stateAt(0), session: session(1, { transport: 'ws', viaGateway: true }) };
    expect(kinds(sweep([behind], 45_001, t))).to.deep.equal([`AgentDisconnected:${uid(1)}`]);
  });

  it('stops sweeping when stopped', () => {
    const w = world();
    w.message(1);
    w.sweeper.stop();
    w.clock.advance(200_000);
    expect(w.seen).to.deep.equal([]);
  });
});

function stateAt(lastSeen: number) {
  return agent({
    n: 1,
    over: { firstSeen: lastSeen, lastSeen, connectionChangedAt: lastSeen, session: http },
  });
}
