import { expect } from 'chai';
import { asapScheduler } from 'rxjs';
import { createEventBus } from '../../../src/events/bus.ts';
import type { AgentEvent } from '../../../src/events/fleetEvent.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { evolveAgent } from '../../../src/projections/agent/evolveAgent.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { createRegistryProjection } from '../../../src/projections/registry/registryProjection.ts';
import { checkedIn, connected, described, disconnected, evicted } from '../../support/events.ts';
import { agentFlags } from '../../../src/projections/agent/agentFlags.ts';
import { health } from '../../support/agentFixture.ts';

const fold = (events: readonly AgentEvent[], from?: AgentState) =>
  events.reduce<AgentState | undefined>(evolveAgent, from);
const tick = () => new Promise<void>((resolve) => asapScheduler.schedule(() => resolve()));

describe('registry projection', () => {
  it('keeps agents in instance_uid order whatever order they arrive in', () => {
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    for (const id of ['c', 'a', 'd', 'b']) bus.publish(connected(id as InstanceUid, 1));
    expect([...registry.ordered()].map((x) => x.uid)).to.deep.equal(['a', 'b', 'c', 'd']);
    bus.publish(evicted('b' as InstanceUid, 2, 1));
    expect([...registry.ordered()].map((x) => x.uid)).to.deep.equal(['a', 'c', 'd']);
    expect(registry.size).to.equal(3);
  });

  it('keeps every agent’s flags in order as health, connection and membership change', () => {
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    const healthAt = (id: string, at: number, healthy: boolean): AgentEvent => ({
      type: 'AgentHealthReported',
      at,
      data: { uid: id as InstanceUid, health: health(healthy) },
    });
    const flags = () => [...registry.orderedFlags()];
    const expected = () => [...registry.ordered()].map(agentFlags);
    for (const id of ['c', 'a', 'b']) bus.publish(connected(id as InstanceUid, 1));
    expect(flags()).to.deep.equal(expected());
    const before = registry.orderedFlags();
    bus.publish(healthAt('b', 2, true));
    bus.publish(healthAt('c', 2, false));
    bus.publish(disconnected('a' as InstanceUid, 3));
    expect(registry.orderedFlags(), 'updated in place while the membership stays').to.equal(before);
    expect(flags()).to.deep.equal(expected());
    expect(flags()).to.deep.equal([0, 4 | 1 | 2, 4 | 1]);
    bus.publish(connected('aa' as InstanceUid, 4));
    bus.publish(evicted('c' as InstanceUid, 5, 2));
    bus.publish(healthAt('aa', 6, false));
    expect(flags()).to.deep.equal(expected());
    expect(flags()).to.deep.equal([0, 4 | 1, 4 | 1 | 2]);
  });

  it('has folded an event by the time publish returns', () => {
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    bus.publish(connected('a' as InstanceUid, 1));
    bus.publish(checkedIn('a' as InstanceUid, 7, 3n));
    expect(registry.get('a' as InstanceUid)).to.include({ lastSeen: 7, sequenceNum: 3n });
  });

  it('reports a failing fold and keeps folding later events', () => {
    const bus = createEventBus();
    const errors: string[] = [];
    const registry = createRegistryProjection(bus.events$, (name) => errors.push(name));
    bus.publish({ type: 'AgentConnected', at: 1, data: null } as never);
    bus.publish(connected('a' as InstanceUid, 2));
    expect(errors).to.deep.equal(['registry']);
    expect(registry.size).to.equal(1);
  });

  it('lists agents longest silent first, moving each to the end at its message', () => {
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    for (const [i, id] of ['a', 'b', 'c'].entries()) bus.publish(connected(id as InstanceUid, i));
    bus.publish(checkedIn('a' as InstanceUid, 5, 1n));
    expect([...registry.bySilence()].map((x) => x.uid)).to.deep.equal(['b', 'c', 'a']);
    bus.publish(evicted('c' as InstanceUid, 6, 2));
    bus.publish(checkedIn('b' as InstanceUid, 7, 1n));
    expect([...registry.bySilence()].map((x) => x.uid)).to.deep.equal(['a', 'b']);
  });

  it('registers an agent anew when it comes back right after its eviction', () => {
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    const a = 'a' as InstanceUid;
    bus.publish(connected(a, 1));
    bus.publish(checkedIn(a, 2, 1n));
    bus.publish(evicted(a, 3, 2));
    expect(registry.get(a)).to.equal(undefined);
    bus.publish(checkedIn(a, 4, 2n)); // no registration to check in to
    expect(registry.get(a)).to.equal(undefined);
    bus.publish(connected(a, 5));
    bus.publish(checkedIn('b' as InstanceUid, 6, 1n)); // another agent's event in between
    bus.publish(checkedIn(a, 7, 3n));
    expect(registry.get(a)).to.include({ firstSeen: 5, lastSeen: 7, sequenceNum: 3n });
    expect([...registry.ordered()].map((x) => x.uid)).to.deep.equal([a]);
  });
  describe('with decided states (fold once)', () => {
    const a = 'a' as InstanceUid;
    const message = [connected(a, 1), checkedIn(a, 1, 1n), described(a, 1, { env: 'x' })];
    // Not the fold of the events: shows that the registry keeps what was decided, not its own fold.
    const decidedState = { ...fold(message)!, sequenceNum: 99n };

    for (const later of [false, true])
      it(`keeps the state decided for a message instead of folding its events (${later ? 'later' : 'synchronous'} delivery)`, async () => {
        const bus = createEventBus(later ? { deliverOn: asapScheduler } : {});
        const registry = createRegistryProjection(bus.events$, () => {});
        registry.decided(a, decidedState, message);
        for (const e of message) bus.publish(e);
        expect(registry.get(a), 'answered before delivery').to.equal(decidedState);
        await tick();
        expect(registry.get(a)).to.equal(decidedState);
        expect([...registry.ordered()]).to.deep.equal([decidedState]);
        expect([...registry.bySilence()]).to.deep.equal([decidedState]);
        const env = registry.attributeColumn('env');
        expect(env.values[env.ids[0]!]).to.equal('x');
        registry.stop();
      });

    it('folds what no decision covers, also between the events of one that is still arriving', async () => {
      const bus = createEventBus({ deliverOn: asapScheduler });
      const registry = createRegistryProjection(bus.events$, () => {});
      registry.decided(a, fold(message), message);
      bus.publish(message[0]!);
      bus.publish(disconnected(a, 2)); // the sweep's, decided by no one
      bus.publish(message[1]!);
      bus.publish(message[2]!);
      await tick();
      expect(registry.get(a)).to.include({ connected: false, lastSeen: 1 });
      bus.publish(checkedIn(a, 3, 2n));
      await tick();
      expect(registry.get(a)).to.include({ lastSeen: 3, sequenceNum: 2n });
      registry.stop();
    });
  });
});
