import { expect } from 'chai';
import fc from 'fast-check';
import { createEventBus } from '../../../src/events/bus.ts';
import { buildAttributeColumn } from '../../../src/projections/registry/attributeColumn.ts';
import { createRegistryProjection } from '../../../src/projections/registry/registryProjection.ts';
import { agent } from '../../support/agentFixture.ts';
import { connected, described, evicted, uid } from '../../support/events.ts';

describe('attribute columns', () => {
  it('gives each agent the id of its value, 0 when it lacks the key, identifying attributes first', () => {
    const column = buildAttributeColumn(
      [
        agent({ n: 1, identifying: { env: 'prod' } }),
        agent({ n: 2, nonIdentifying: { env: 'dev' } }),
        agent({ n: 3 }),
        agent({ n: 4, identifying: { env: 'prod' }, nonIdentifying: { env: 'shadowed' } }),
        agent({ n: 5, undescribed: true }),
      ],
      'env',
    );
    expect([...column.ids]).to.deep.equal([1, 2, 0, 1, 0]);
    expect(column.values).to.deep.equal([undefined, 'prod', 'dev']);
  });

  it('follows the registry: rebuilt after a new description, a registration or an eviction', () => {
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    const valuesInOrder = () => {
      const c = registry.attributeColumn('env');
      return [...c.ids].map((id) => c.values[id]);
    };
    bus.publish(connected(uid(2), 1));
    bus.publish(described(uid(2), 1, { env: 'prod' }));
    bus.publish(connected(uid(1), 1));
    expect(valuesInOrder()).to.deep.equal([undefined, 'prod']);
    expect(registry.attributeColumn('env')).to.equal(registry.attributeColumn('env'));

    bus.publish(described(uid(1), 2, { env: 'dev' }));
    expect(valuesInOrder()).to.deep.equal(['dev', 'prod']);
    bus.publish(connected(uid(3), 3));
    expect(valuesInOrder()).to.deep.equal(['dev', 'prod', undefined]);
    bus.publish(evicted(uid(1), 4, 2));
    expect(valuesInOrder()).to.deep.equal(['prod', undefined]);
  });

  it('agrees with a column built from the ordered agents after any registrations, departures and descriptions', () => {
    const step = fc.oneof(
      fc.record({ join: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ leave: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ describe: fc.integer({ min: 0, max: 30 }), env: fc.constantFrom('prod', 'dev', 'qa') }),
      fc.record({ read: fc.constantFrom('env', 'tier') }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 150 }), (steps) => {
        const bus = createEventBus();
        const registry = createRegistryProjection(bus.events$, (_p, e) => {
          throw e;
        });
        const present = new Set<number>();
        let at = 1;
        const check = (key: string) => {
          const c = registry.attributeColumn(key);
          const expected = buildAttributeColumn([...registry.ordered()], key);
          expect([...c.ids].map((id) => c.values[id])).to.deep.equal(
            [...expected.ids].map((id) => expected.values[id]),
          );
        };
        for (const s of steps) {
          at++;
          if ('join' in s) {
            if (present.has(s.join)) continue;
            present.add(s.join);
            bus.publish(connected(uid(s.join), at));
            bus.publish(described(uid(s.join), at, { env: 'new', tier: String(s.join % 3) }));
          } else if ('leave' in s) {
            if (!present.delete(s.leave)) continue;
            bus.publish(evicted(uid(s.leave), at, at));
          } else if ('describe' in s) {
            if (present.has(s.describe))
              bus.publish(described(uid(s.describe), at, { env: s.env, tier: s.env.slice(0, 1) }));
          } else check(s.read);
        }
        check('env');
        check('tier');
        registry.stop();
        bus.close();
      }),
    );
  });

  it('stays cached across check-ins and health reports', () => {
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    bus.publish(connected(uid(1), 1));
    bus.publish(described(uid(1), 1, { env: 'prod' }));
    const before = registry.attributeColumn('env');
    bus.publish({
      type: 'AgentCheckedIn',
      at: 2,
      data: { uid: uid(1), session: registry.get(uid(1))!.session, sequenceNum: 1n, capabilities: 1n },
    });
    expect(registry.attributeColumn('env')).to.equal(before);
  });
});
