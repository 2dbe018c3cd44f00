import { expect } from 'chai';
import { createEventBus } from '../../../src/events/bus.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import type { AgentStoreReader, StoredList } from '../../../src/persistence/agents/storeReader.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import {
  createRegistryProjection,
  type RegistryProjection,
} from '../../../src/projections/registry/registryProjection.ts';
import { matchAll, parseFleetQuery, type FleetFilter } from '../../../src/projections/filter/fleetFilter.ts';
import { createFleetReader, type ReadSurface } from '../../../src/web/read/fleetReader.ts';
import { agent, uidOf } from '../../support/agentFixture.ts';
import { connected, described } from '../../support/events.ts';

/**
 * An in-memory AgentStoreReader (a collaborator of the read path) that counts its reads. Like the
 * store's mirror, it lists its agents in instance_uid order, each uid once.
 */
class MemoryStore implements AgentStoreReader {
  listCalls = 0;
  /** Stored agents the list walks visited. */
  visited = 0;
  getCalls: InstanceUid[] = [];
  failing = false;
  private readonly agents: AgentState[];
  constructor(agents: AgentState[]) {
    this.agents = [...new Map(agents.map((a) => [a.uid, a])).values()].sort((a, b) =>
      a.uid < b.uid ? -1 : 1,
    );
  }
  listAgents(): StoredList {
    this.listCalls++;
    if (this.failing) return { ok: false, error: new Error('store down') };
    const ordered = this.agents;
    return {
      ok: true,
      agents: {
        size: ordered.length,
        has: (uid) => ordered.some((a) => a.uid === uid),
        forEachOrdered: (visit) => {
          for (const agent of ordered) {
            this.visited++;
            if (visit(agent) === false) return;
          }
        },
      },
    };
  }
  getAgent(uid: InstanceUid): Promise<AgentState | undefined> {
    this.getCalls.push(uid);
    if (this.failing) return Promise.reject(new Error('store down'));
    return Promise.resolve(this.agents.find((a) => a.uid === uid));
  }
}

function filterOf(query: string): FleetFilter {
  const parsed = parseFleetQuery(new URLSearchParams(query));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.filter;
}

const uids = (agents: readonly AgentState[]) => agents.map((a) => a.uid);

describe('fleet reader', () => {
  let registry: RegistryProjection;
  let bus: ReturnType<typeof createEventBus>;

  /** Local agents 2, 4, 6 (registered in reverse order); 4 is env=prod. */
  beforeEach(() => {
    bus = createEventBus();
    registry = createRegistryProjection(bus.events$, (_p, e) => {
      throw e;
    });
    for (const n of [6, 4, 2]) {
      bus.publish(connected(uidOf(n), 1000));
      bus.publish(described(uidOf(n), 1000, { 'service.name': `local-${n}`, env: n === 4 ? 'prod' : 'dev' }));
    }
  });
  afterEach(() => {
    registry.stop();
    bus.close();
  });

  describe('without a store', () => {
    it('pages the registry in instance_uid order with the fleet size as total', async () => {
      const reader = createFleetReader({ registry });
      const page = await reader.listPage(matchAll, { limit: 2, offset: 1 }, 'api');
      expect(uids(page.agents)).to.deep.equal([uidOf(4), uidOf(6)]);
      expect(page).to.include({ total: 3, partial: false });
    });

    it('reads only offset + limit entries of the ordered index for an unfiltered page', async () => {
      let visited = 0;
      const counting = {
        ...registry,
        size: registry.size,
        ordered: function* () {
          for (const a of registry.ordered()) {
            visited++;
            yield a;
          }
        },
        values: () => {
          throw new Error('an unfiltered page must not scan the fleet');
        },
      };
      const reader = createFleetReader({ registry: counting });
      const page = await reader.listPage(matchAll, { limit: 1, offset: 1 }, 'api');
      expect(uids(page.agents)).to.deep.equal([uidOf(4)]);
      expect(visited).to.be.at.most(3);
    });

    it('filters before paging and counts the filtered set', async () => {
      const reader = createFleetReader({ registry });
      const page = await reader.listPage(filterOf('match=env=dev'), { limit: 1, offset: 1 }, 'api');
      expect(uids(page.agents)).to.deep.equal([uidOf(6)]);
      expect(page.total).to.equal(2);
    });

    it('returns an empty page past the end', async () => {
      const reader = createFleetReader({ registry });
      const page = await reader.listPage(matchAll, { limit: 10, offset: 10 }, 'api');
      expect(page.agents).to.deep.equal([]);
      expect(page.total).to.equal(3);
    });

    it('returns the whole filtered set for callers that sort it themselves', async () => {
      const reader = createFleetReader({ registry });
      const all = await reader.listAll(filterOf('match=env!=prod'), 'ui');
      expect(uids(all.agents)).to.deep.equal([uidOf(2), uidOf(6)]);
      expect(all.partial).to.equal(false);
    });

    it('answers a single read from the registry, undefined on a miss', async () => {
      const reader = createFleetReader({ registry });
      expect((await reader.getAgent(uidOf(4)))?.uid).to.equal(uidOf(4));
      expect(await reader.getAgent(uidOf(5))).to.equal(undefined);
    });
  });

  describe('with a store (SPEC durability rules 2-6)', () => {
    // Store: 1 and 5 only there, 4 also local (stale copy with another env).
    const stored = () => [
      agent({ n: 5, identifying: { 'service.name': 'remote-5', env: 'prod' }, over: { connected: false } }),
      agent({ n: 4, identifying: { 'service.name': 'stale-4', env: 'dev' } }),
      agent({ n: 1, identifying: { 'service.name': 'remote-1', env: 'dev' } }),
      agent({ n: 3, identifying: { 'service.name': 'remote-3', env: 'dev' } }),
    ];

    it('merges one store read in instance_uid order, the local entry winning on overlap', async () => {
      const store = new MemoryStore(stored());
      const reader = createFleetReader({ registry, store });
      const page = await reader.listPage(matchAll, { limit: 100, offset: 0 }, 'api');
      expect(uids(page.agents)).to.deep.equal([1, 2, 3, 4, 5, 6].map(uidOf));
      expect(page.agents[3]?.description?.identifying['service.name']).to.equal('local-4');
      expect(page).to.include({ total: 6, partial: false });
      expect(store.listCalls).to.equal(1);
    });

    it('pages an unfiltered merged set without walking past the page, counting its total', async () => {
      const many = [...stored(), ...Array.from({ length: 40 }, (_, i) => agent({ n: 100 + i }))];
      const store = new MemoryStore(many);
      const reader = createFleetReader({ registry, store });
      const all = await reader.listAll(matchAll, 'api');
      for (const [offset, limit] of [
        [0, 2],
        [1, 3],
        [3, 2],
        [40, 10],
        [44, 5],
        [50, 5],
      ] as const) {
        store.visited = 0;
        const page = await reader.listPage(matchAll, { limit, offset }, 'api');
        expect(uids(page.agents), `${offset}+${limit}`).to.deep.equal(
          uids(all.agents.slice(offset, offset + limit)),
        );
        expect(page.total).to.equal(all.agents.length);
        expect(store.visited, `${offset}+${limit}`).to.be.at.most(offset + limit);
      }
      expect(all.agents.length).to.equal(6 + 40);
    });

    it('filters the merged set (local values decide for overlapping agents) and then pages it', async () => {
      const store = new MemoryStore(stored());
      const reader = createFleetReader({ registry, store });
      const prod = await reader.listPage(filterOf('match=env=prod'), { limit: 1, offset: 1 }, 'api');
      expect(uids(prod.agents)).to.deep.equal([uidOf(5)]);
      expect(prod.total).to.equal(2);
      const dev = await reader.listAll(filterOf('match=env=dev'), 'ui');
      expect(uids(dev.agents)).to.deep.equal([1, 2, 3, 6].map(uidOf));
    });

    it('applies boolean filters to store agents as stored', async () => {
      const reader = createFleetReader({ registry, store: new MemoryStore(stored()) });
      const page = await reader.listPage(filterOf('connected=false'), { limit: 10, offset: 0 }, 'api');
      expect(uids(page.agents)).to.deep.equal([uidOf(5)]);
    });

    it('degrades to the registry with partial=true and reports the fallback for its surface', async () => {
      const store = new MemoryStore(stored());
      store.failing = true;
      const fallbacks: ReadSurface[] = [];
      const reader = createFleetReader({
        registry,
        store,
        onStoreFallback: (surface) => fallbacks.push(surface),
      });
      const page = await reader.listPage(matchAll, { limit: 10, offset: 0 }, 'api');
      expect(uids(page.agents)).to.deep.equal([2, 4, 6].map(uidOf));
      expect(page).to.include({ total: 3, partial: true });
      const all = await reader.listAll(matchAll, 'ui');
      expect(all.partial).to.equal(true);
      expect(fallbacks).to.deep.equal(['api', 'ui']);
      store.failing = false;
      const again = await reader.listPage(matchAll, { limit: 10, offset: 0 }, 'api');
      expect(again).to.include({ total: 6, partial: false });
      expect(fallbacks).to.have.length(2);
    });

    it('never asks the store for an agent the registry holds', async () => {
      const store = new MemoryStore(stored());
      const reader = createFleetReader({ registry, store });
      expect((await reader.getAgent(uidOf(4)))?.description?.identifying['service.name']).to.equal('local-4');
      expect(store.getCalls).to.deep.equal([]);
    });

    it('asks the store once on a registry miss', async () => {
      const store = new MemoryStore(stored());
      const reader = createFleetReader({ registry, store });
      expect((await reader.getAgent(uidOf(5)))?.uid).to.equal(uidOf(5));
      expect(await reader.getAgent(uidOf(9))).to.equal(undefined);
      expect(store.getCalls).to.deep.equal([uidOf(5), uidOf(9)]);
    });

    it('rejects a single read when the store fails on a registry miss', async () => {
      const store = new MemoryStore(stored());
      store.failing = true;
      const reader = createFleetReader({ registry, store });
      let failure: unknown;
      await reader.getAgent(uidOf(5)).catch((e: unknown) => (failure = e));
      expect(failure).to.be.instanceOf(Error);
    });
  });
});

describe('fleet reader: column evaluation agrees with the record filter', () => {
  it('returns exactly the agents filter.matches accepts, in instance_uid order, for every query', async () => {
    const { createEventBus } = await import('../../../src/events/bus.ts');
    const { createRegistryProjection } =
      await import('../../../src/projections/registry/registryProjection.ts');
    const { parseFleetQuery } = await import('../../../src/projections/filter/fleetFilter.ts');
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    const envs = ['prod', 'dev', 'stage'];
    for (let n = 200; n >= 1; n--) {
      const id = uidOf(n);
      bus.publish({ type: 'AgentConnected', at: n, data: { uid: id, session: agent().session } });
      if (n % 7 === 0) continue; // undescribed agents
      const identifying: Record<string, string> = { 'service.name': `svc-${n % 5}` };
      if (n % 5 !== 0) identifying.env = envs[n % 3]!;
      bus.publish({
        type: 'AgentStatusReported',
        at: n,
        data: { uid: id, description: { identifying, nonIdentifying: { team: `t${n % 4}` } } },
      });
      if (n % 2 === 0)
        bus.publish({
          type: 'AgentHealthReported',
          at: n,
          data: {
            uid: id,
            health: {
              healthy: n % 4 === 0,
              startTimeNanos: 0n,
              lastError: '',
              status: '',
              statusTimeNanos: 0n,
              components: {},
            },
          },
        });
    }
    const reader = createFleetReader({ registry });
    for (const qs of [
      'match=env=prod',
      'match=env!=prod',
      'match=service.name=~"svc-[12]"',
      'match=env!~"p.*"&healthy=true',
      'team=t1&match=service.name!=svc-0',
      'healthy=false&match=env=~".*"',
    ]) {
      const parsed = parseFleetQuery(new URLSearchParams(qs));
      if (!parsed.ok) throw new Error(parsed.error);
      const expected = [...registry.ordered()].filter((a) => parsed.filter.matches(a)).map((a) => a.uid);
      const page = await reader.listPage(parsed.filter, { limit: 1000, offset: 0 }, 'api');
      const all = await reader.listAll(parsed.filter, 'ui');
      expect(
        page.agents.map((a) => a.uid),
        qs,
      ).to.deep.equal(expected);
      expect(
        all.agents.map((a) => a.uid),
        qs,
      ).to.deep.equal(expected);
      expect(page.total, qs).to.equal(expected.length);
      expect(expected.length, qs).to.be.greaterThan(0);
    }
  });
});
