import { expect } from 'chai';
import { createEvictionMask } from '../../../src/persistence/agents/evictionMask.ts';
import { agent, uidOf } from './storeFixtures.ts';

describe('eviction mask (agents this replica evicted are never listed)', () => {
  it('hides the stored copy of an evicted agent from the moment of the eviction', () => {
    const mask = createEvictionMask();
    expect(mask.hides(agent(1, { lastSeen: 1000 }))).to.equal(false);
    mask.evicted(uidOf(1), 1000);
    expect(mask.hides(agent(1, { lastSeen: 1000 }))).to.equal(true);
    expect(mask.hides(agent(1, { lastSeen: 900 }))).to.equal(true);
    expect(mask.hides(agent(2, { lastSeen: 1000 }))).to.equal(false);
  });

  it('shows a copy a sibling wrote after this replica last heard from the agent (it moved)', () => {
    const mask = createEvictionMask();
    mask.evicted(uidOf(1), 1000);
    expect(mask.hides(agent(1, { lastSeen: 1001 }))).to.equal(false);
  });

  it('forgets an agent that connected again', () => {
    const mask = createEvictionMask();
    mask.evicted(uidOf(1), 1000);
    mask.returned(uidOf(1));
    expect(mask.hides(agent(1, { lastSeen: 1000 }))).to.equal(false);
    expect(mask.size).to.equal(0);
  });

  it('keeps hiding until a mirror read that started after the soft delete was written completed', () => {
    const mask = createEvictionMask();
    mask.evicted(uidOf(1), 1000);
    mask.evicted(uidOf(2), 1000);
    // Reads 1..3 have started; read 3 may have begun before the soft delete committed.
    mask.readCompleted(2);
    mask.softDeleted([uidOf(1)], 3);
    mask.readCompleted(3);
    expect(mask.hides(agent(1, { lastSeen: 1000 }))).to.equal(true);
    mask.readCompleted(4);
    expect(mask.hides(agent(1, { lastSeen: 1000 }))).to.equal(false);
    // Agent 2's soft delete is not written yet: still hidden.
    expect(mask.hides(agent(2, { lastSeen: 1000 }))).to.equal(true);
    expect(mask.size).to.equal(1);
  });

  it('counts the stored agents it hides, leaving out newer copies and agents not stored', () => {
    const mask = createEvictionMask();
    for (const n of [1, 2, 3]) mask.evicted(uidOf(n), 1000);
    const stored = new Map([
      [uidOf(1), agent(1, { lastSeen: 1000 })],
      [uidOf(2), agent(2, { lastSeen: 2000 })],
    ]);
    expect(mask.countHidden((uid) => stored.get(uid))).to.equal(1);
  });
});
