import { expect } from 'chai';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { createStoreMirror, type MirrorEntry } from '../../../src/persistence/agents/storeMirror.ts';
import { agent, uidOf } from './storeFixtures.ts';

const entry = (
  n: number,
  over: Partial<Omit<MirrorEntry, 'agent'>> & { agent?: Partial<AgentState> } = {},
): MirrorEntry => ({
  agent: agent(n, over.agent),
  connectedUntil: over.connectedUntil ?? 50_000,
  evicted: over.evicted ?? false,
});

const walk = (mirror: ReturnType<typeof createStoreMirror>, now: number) => {
  const seen: [string, boolean][] = [];
  mirror.forEachOrdered(now, (a) => void seen.push([a.uid, a.connected]));
  return seen;
};

describe('store mirror (the stored agents fleet lists merge)', () => {
  it('walks the stored agents in instance_uid order whatever order their rows came in', () => {
    const mirror = createStoreMirror();
    for (const n of [5, 1, 3]) mirror.apply(entry(n));
    expect(walk(mirror, 0).map(([uid]) => uid)).to.deep.equal([1, 3, 5].map(uidOf));
  });

  it('keeps the latest row of an agent and drops a soft-deleted one', () => {
    const mirror = createStoreMirror();
    mirror.apply(entry(1));
    mirror.apply(entry(2));
    mirror.apply(entry(1, { agent: { lastSeen: 9000 } }));
    mirror.apply(entry(2, { evicted: true }));
    mirror.apply(entry(3, { evicted: true }));
    expect(walk(mirror, 0).map(([uid]) => uid)).to.deep.equal([uidOf(1)]);
    expect(mirror.get(uidOf(1))?.lastSeen).to.equal(9000);
    expect(mirror.size).to.equal(1);
  });

  it('counts a stored connected agent connected only until its session row goes stale (rule 10)', () => {
    const mirror = createStoreMirror();
    mirror.apply(entry(1, { connectedUntil: 1000 }));
    mirror.apply(entry(2, { agent: { connected: false }, connectedUntil: -Infinity }));
    expect(walk(mirror, 1000)).to.deep.equal([
      [uidOf(1), true],
      [uidOf(2), false],
    ]);
    expect(walk(mirror, 1001)).to.deep.equal([
      [uidOf(1), false],
      [uidOf(2), false],
    ]);
    // A newer row (a keepalive) makes it fresh again.
    mirror.apply(entry(1, { connectedUntil: 60_000 }));
    expect(walk(mirror, 2000)[0]).to.deep.equal([uidOf(1), true]);
  });

  it('stops the walk when the visitor returns false', () => {
    const mirror = createStoreMirror();
    for (const n of [1, 2, 3]) mirror.apply(entry(n));
    const seen: string[] = [];
    mirror.forEachOrdered(0, (a) => seen.push(a.uid) < 2);
    expect(seen).to.deep.equal([uidOf(1), uidOf(2)]);
  });
});
