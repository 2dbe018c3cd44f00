import { expect } from 'chai';
import type { AgentEvent } from '../../../src/events/fleetEvent.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import fc from 'fast-check';
import { evolveAgent, evolveAgentAll } from '../../../src/projections/agent/evolveAgent.ts';
import { health } from '../../support/agentFixture.ts';
import {
  checkedIn,
  connected,
  described,
  disconnected,
  evicted,
  session,
  uid,
} from '../../support/events.ts';

const fold = (events: AgentEvent[], start?: AgentState) =>
  events.reduce<AgentState | undefined>(evolveAgent, start);
const a = uid(1);

describe('evolveAgent', () => {
  it('registers an unknown agent on connect with first_seen and last_seen at the event time', () => {
    const agent = fold([connected(a, 1000)]);
    expect(agent).to.include({
      uid: a,
      firstSeen: 1000,
      lastSeen: 1000,
      connected: true,
      description: null,
      health: null,
    });
    expect(agent?.missingAttributes).to.deep.equal([]);
    expect(agent?.reservedAttributeConflicts).to.deep.equal([]);
  });

  it('moves last_seen, sequence number and capabilities on every check-in', () => {
    const agent = fold([connected(a, 1000), checkedIn(a, 1000, 0n), checkedIn(a, 2500, 1n)]);
    expect(agent).to.include({ firstSeen: 1000, lastSeen: 2500, sequenceNum: 1n, capabilities: 1n });
  });

  it('merges reports field by field: a health report keeps the description', () => {
    const agent = fold([
      connected(a, 1),
      described(a, 1, { 'service.name': 'otelcol' }),
      {
        type: 'AgentHealthReported',
        at: 2,
        data: {
          uid: a,
          health: {
            healthy: false,
            startTimeNanos: 5n,
            lastError: 'x',
            status: 's',
            statusTimeNanos: 6n,
            components: {},
          },
        },
      },
    ]);
    expect(agent?.description?.identifying).to.deep.equal({ 'service.name': 'otelcol' });
    expect(agent?.health?.healthy).to.equal(false);
  });

  it('disconnects without moving last_seen (rule 14)', () => {
    const agent = fold([connected(a, 1000), checkedIn(a, 1000), disconnected(a, 9000)]);
    expect(agent).to.include({ connected: false, lastSeen: 1000, connectionChangedAt: 9000 });
  });

  it('reconnects a disconnected agent on its next connect, keeping first_seen', () => {
    const agent = fold([connected(a, 1000), disconnected(a, 2000), connected(a, 3000, session(2))]);
    expect(agent).to.include({ connected: true, firstSeen: 1000 });
    expect(agent?.session.connectionId).to.equal(2);
  });

  it('removes the agent on eviction, and a later connect registers it afresh', () => {
    const gone = fold([connected(a, 1000), described(a, 1000, { k: 'v' }), evicted(a, 99_000, 1000)]);
    expect(gone).to.equal(undefined);
    const back = fold([connected(a, 120_000)], gone);
    expect(back).to.include({ firstSeen: 120_000, description: null });
  });

  it('returns the same reference when nothing changes', () => {
    const agent = fold([connected(a, 1)])!;
    expect(
      evolveAgent(agent, {
        type: 'AgentFullStateRequested',
        at: 2,
        data: { uid: a, reason: 'no_description' },
      }),
    ).to.equal(agent);
    const off = evolveAgent(agent, disconnected(a, 3))!;
    expect(evolveAgent(off, disconnected(a, 4))).to.equal(off);
  });

  it('ignores reports for an agent it does not hold', () => {
    expect(evolveAgent(undefined, described(a, 1, {}))).to.equal(undefined);
    expect(evolveAgent(undefined, checkedIn(a, 1))).to.equal(undefined);
  });
});

describe('evolveAgentAll', () => {
  const sessions = [session(1), session(2), session(3, { transport: 'http' })];
  const event = fc.oneof(
    fc.record({ s: fc.nat(2), at: fc.nat(100) }).map(({ s, at }) => connected(a, at, sessions[s])),
    fc
      .record({ s: fc.nat(2), at: fc.nat(100), seq: fc.bigInt({ min: 0n, max: 9n }) })
      .map(({ s, at, seq }) => checkedIn(a, at, seq, sessions[s])),
    fc.nat(100).map((at) => described(a, at, { 'service.name': `s${at % 3}` })),
    fc.nat(100).map((at) => disconnected(a, at)),
    fc.nat(100).map((at) => evicted(a, at, at)),
    fc.nat(100).map((at): AgentEvent => ({
      type: 'AgentHealthReported',
      at,
      data: { uid: a, health: health(at % 2 === 0) },
    })),
    fc.nat(100).map((at): AgentEvent => ({
      type: 'AgentFullStateRequested',
      at,
      data: { uid: a, reason: 'sequence_gap' },
    })),
    fc.nat(100).map((at): AgentEvent => ({
      type: 'AgentRemoteConfigOffered',
      at,
      data: { uid: a, hash: `h${at}`, configs: [] },
    })),
    fc.nat(100).map((at): AgentEvent => ({
      type: 'AgentComplianceChanged',
      at,
      data: { uid: a, missing: ['team'], conflicts: [], newlyMissing: ['team'], newlyConflicting: [] },
    })),
  );

  it('ends where folding evolveAgent event by event ends, and leaves what it was given alone', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(event, { maxLength: 12 }), (known, events) => {
        const start = known ? fold([connected(a, 0), checkedIn(a, 0)]) : undefined;
        const before = structuredClone(start);
        const all = evolveAgentAll(start, events);
        const oneByOne = fold(events, start);
        expect(all).to.deep.equal(oneByOne);
        if (oneByOne === start) expect(all).to.equal(start);
        expect(start).to.deep.equal(before);
      }),
    );
  });

  it('makes one new record however many events change it', () => {
    const start = fold([connected(a, 0)])!;
    const after = evolveAgentAll(start, [
      checkedIn(a, 5, 1n),
      described(a, 5, { x: 'y' }),
      checkedIn(a, 6, 2n),
    ]);
    expect(after).not.to.equal(start);
    expect(after).to.include({ lastSeen: 6, sequenceNum: 2n });
    expect(evolveAgentAll(start, [disconnected(a, 1), disconnected(a, 2)])).to.include({
      connected: false,
      connectionChangedAt: 1,
    });
    expect(evolveAgentAll(start, [])).to.equal(start);
  });
});
