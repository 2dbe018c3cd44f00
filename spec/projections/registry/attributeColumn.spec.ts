import { expect } from 'chai';
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
