import { expect } from 'chai';
import type { AgentEvent } from '../../../src/events/fleetEvent.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { evolveAgent } from '../../../src/projections/agent/evolveAgent.ts';
import { createDecidedStates } from '../../../src/projections/registry/decidedStates.ts';
import { checkedIn, connected, disconnected, uid } from '../../support/events.ts';

const a = uid(1);
const b = uid(2);
const fold = (events: readonly AgentEvent[], from?: AgentState) =>
  events.reduce<AgentState | undefined>(evolveAgent, from);

describe('states decided and not yet folded', () => {
  it('folds every event while nothing is decided', () => {
    const decided = createDecidedStates();
    expect(decided.arrived(connected(a, 1))).to.deep.equal({ kind: 'fold' });
    expect(decided.size).to.equal(0);
  });

  it('keeps the decided state when the last event of its decision arrives, and skips the others', () => {
    const decided = createDecidedStates();
    const events = [connected(a, 1), checkedIn(a, 1, 1n)];
    const state = fold(events);
    decided.decided(a, state, events);
    expect(decided.latest(a)?.state).to.equal(state);
    expect(decided.latest(b)).to.equal(undefined);
    expect(decided.arrived(events[0]!)).to.deep.equal({ kind: 'skip' });
    expect(decided.arrived(events[1]!)).to.deep.equal({ kind: 'keep', state });
    expect(decided.size).to.equal(0);
    expect(decided.latest(a)).to.equal(undefined);
  });

  it('tells an equal event of no decision from the decided one by identity', () => {
    const decided = createDecidedStates();
    const events = [checkedIn(a, 5, 2n)];
    decided.decided(a, undefined, events);
    expect(decided.arrived(checkedIn(a, 5, 2n))).to.deep.equal({ kind: 'fold' });
    expect(decided.arrived(events[0]!)).to.deep.equal({ kind: 'keep', state: undefined });
  });

  it('folds an event no decision covers into the states still waiting, so none loses it', () => {
    const decided = createDecidedStates();
    const before = fold([connected(a, 1)]);
    const events = [checkedIn(a, 2, 1n)];
    decided.decided(a, fold(events, before), events);
    const sweep = disconnected(a, 3);
    expect(decided.arrived(sweep)).to.deep.equal({ kind: 'fold' });
    const kept = decided.arrived(events[0]!);
    expect(kept.kind).to.equal('keep');
    expect(kept.kind === 'keep' && kept.state).to.include({ connected: false, lastSeen: 2 });
  });

  it('lets a later decision whose events all arrived first supersede an earlier one still arriving', () => {
    const decided = createDecidedStates();
    const first = [connected(a, 1), checkedIn(a, 1, 1n)];
    const s1 = fold(first);
    decided.decided(a, s1, first);
    expect(decided.arrived(first[0]!).kind).to.equal('skip');
    // Published while first[0] was delivered (a subscriber pushed a command): decided on s1.
    const second = [checkedIn(a, 2, 2n)];
    const s2 = fold(second, s1);
    decided.decided(a, s2, second);
    expect(decided.latest(a)?.state).to.equal(s2);
    expect(decided.arrived(second[0]!)).to.deep.equal({ kind: 'keep', state: s2 });
    expect(decided.arrived(first[1]!), 'the earlier state is older than the one kept').to.deep.equal({
      kind: 'skip',
    });
    expect(decided.size).to.equal(0);
  });

  it('ignores a decision without events', () => {
    const decided = createDecidedStates();
    decided.decided(a, undefined, []);
    expect(decided.size).to.equal(0);
  });
});
