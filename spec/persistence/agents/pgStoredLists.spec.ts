// Database-backed fleet lists (pgStoredLists.ts) against real PostgreSQL: freshness without any
// catch-up, and the eviction mask across the store's reads.

import { expect } from 'chai';
import type pg from 'pg';
import { silentLogger } from '../../../src/io/logger.ts';
import { Subject } from 'rxjs';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import { createPgStoreReader } from '../../../src/persistence/agents/pgStoreReader.ts';
import type { PgStoredLists } from '../../../src/persistence/agents/pgStoredLists.ts';
import { createEventBus } from '../../../src/events/bus.ts';
import { heldIds } from '../../../src/persistence/agents/storeReader.ts';
import { matchAll, parseFleetQuery } from '../../../src/projections/filter/fleetFilter.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { connected, described } from '../../support/events.ts';
import { createRegistryProjection } from '../../../src/projections/registry/registryProjection.ts';
import { createFleetReader } from '../../../src/web/read/fleetReader.ts';
import { testSession } from '../../support/agentFixture.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { agent, storeFixture, uidOf, type StoreFixture } from './storeFixtures.ts';

describe('fleet lists answered by PostgreSQL (no stored agent kept in memory)', () => {
  let db: TestDatabase;
  let store: StoreFixture;
  let lists: PgStoredLists | undefined;

  before(async () => {
    db = await createTestDatabase();
    store = await storeFixture(db);
  });
  after(async () => {
    await store.close();
    await db.drop();
  });
  beforeEach(async () => {
    await store.query('TRUNCATE agents CASCADE');
    store.clock.now = 1_700_000_002_000;
  });
  afterEach(() => {
    lists?.stop();
    lists = undefined;
  });

  const uids = async (l: PgStoredLists) => {
    const out: string[] = [];
    await l.scan(matchAll, heldIds([]), (a) => void out.push(a.uid));
    return out;
  };

  it('lists what was committed before the list started, with no read in between', async () => {
    lists = store.lists();
    expect(await uids(lists)).to.deep.equal([]);
    await store.writer.saveAgents([agent(2), agent(1)]);
    expect(await uids(lists)).to.deep.equal([uidOf(1), uidOf(2)]);
    expect(await lists.count(matchAll, heldIds([uidOf(2)]))).to.equal(1);
    await store.writer.softDeleteAgents([{ uid: uidOf(2), lastSeen: agent(2).lastSeen, at: 9000 }]);
    expect(await uids(lists)).to.deep.equal([uidOf(1)]);
  });

  it('hides an agent this replica evicted until a read after its soft delete completed, single reads too', async () => {
    const events = new Subject<FleetEvent>();
    lists = store.lists({ events$: events });
    const reader = createPgStoreReader(store.pools.read, {
      lists,
      now: () => store.clock.now,
      disconnectAfterMs: 45_000,
    });
    const lastSeen = agent(1).lastSeen;
    await store.writer.saveAgents([agent(1), agent(2)]);
    events.next({ type: 'AgentEvicted', at: 9000, data: { uid: uidOf(1), lastSeen } });
    // The row is still live: the flush has not soft-deleted it yet.
    expect(await uids(lists)).to.deep.equal([uidOf(2)]);
    expect(await lists.count(matchAll, heldIds([]))).to.equal(1);
    expect(await reader.getAgent(uidOf(1))).to.equal(undefined);
    await store.writer.softDeleteAgents([{ uid: uidOf(1), lastSeen, at: 9000 }]);
    events.next({ type: 'AgentsSoftDeleted', at: 9100, data: { uids: [uidOf(1)] } });
    expect(await uids(lists)).to.deep.equal([uidOf(2)]);
    // The agent comes back on a sibling: a newer row, listed.
    await store.writer.saveAgents([agent(1, { lastSeen: lastSeen + 5000 })]);
    expect(await uids(lists)).to.deep.equal([uidOf(1), uidOf(2)]);
    expect(await lists.count(matchAll, heldIds([]))).to.equal(2);
    expect((await reader.getAgent(uidOf(1)))?.lastSeen).to.equal(lastSeen + 5000);
  });

  it('keeps hiding a copy a sibling has not replaced while the soft delete is not written', async () => {
    const events = new Subject<FleetEvent>();
    lists = store.lists({ events$: events });
    await store.writer.saveAgents([agent(1), agent(2)]);
    events.next({ type: 'AgentEvicted', at: 9000, data: { uid: uidOf(1), lastSeen: agent(1).lastSeen } });
    // A sibling wrote an older copy meanwhile (same last_seen): still this replica's evicted agent.
    expect(await uids(lists)).to.deep.equal([uidOf(2)]);
    expect(await lists.count(matchAll, heldIds([]))).to.equal(1);
    events.next({ type: 'AgentConnected', at: 9500, data: { uid: uidOf(1), session: testSession } });
    expect(await uids(lists)).to.deep.equal([uidOf(1), uidOf(2)]);
  });

  it('gives job targets and config counts every stored agent, and cuts only where a caller asks', async () => {
    // 2,500 agents: more than one of the scan's chunks (2,000 rows).
    const stored = Array.from({ length: 2500 }, (_, i) => agent(i + 1));
    for (let i = 0; i < stored.length; i += 500) await store.writer.saveAgents(stored.slice(i, i + 500));
    lists = store.lists();
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    const reader = createFleetReader({
      registry,
      store: createPgStoreReader(store.pools.read, {
        lists,
        now: () => store.clock.now,
        disconnectAfterMs: 45_000,
      }),
    });
    const all = await reader.listAll(matchAll, 'api');
    expect(all.agents.length).to.equal(2500);
    expect(all.partial).to.equal(false);
    const cut = await reader.listAll(matchAll, 'ui', 100);
    expect(cut.agents.map((a) => a.uid)).to.deep.equal(stored.slice(0, 100).map((a) => a.uid));
    expect(cut.limited).to.equal(true);
    expect(cut.partial).to.equal(true);
    bus.close();
  });

  it('pages the merged fleet by the registry’s order, its columns and its records alike', async () => {
    // Stored 1..300; the registry holds 250..349 (its entry wins) and reports other names for them.
    const stored = Array.from({ length: 300 }, (_, i) => agent(i + 1));
    await store.writer.saveAgents(stored);
    lists = store.lists();
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => {});
    for (let n = 250; n < 350; n++) {
      bus.publish(connected(uidOf(n), 1));
      bus.publish(described(uidOf(n), 2, { 'service.name': `svc-${n % 3 === 0 ? n : `local-${n}`}` }));
    }
    const reader = createFleetReader({
      registry,
      store: createPgStoreReader(store.pools.read, {
        lists,
        now: () => store.clock.now,
        disconnectAfterMs: 45_000,
      }),
    });
    const storedAsListed: AgentState[] = [];
    await lists.scan(matchAll, heldIds([]), (a) => void storedAsListed.push(a));
    const merged = [
      ...[...registry.values()],
      ...storedAsListed.filter((a) => registry.get(a.uid) === undefined),
    ].sort((a, b) => (a.uid < b.uid ? -1 : 1));
    for (const query of ['', 'match=service.name%3D~%22svc-2.*%22', 'connected=true', 'connected=false']) {
      const parsed = parseFleetQuery(new URLSearchParams(query));
      if (!parsed.ok) throw new Error(parsed.error);
      const expected = merged.filter((a) => parsed.filter.matches(a)).map((a) => a.uid);
      for (const offset of [0, 40, 230, 330]) {
        const page = await reader.listPage(parsed.filter, { offset, limit: 40 }, 'api');
        expect(page.total, `${query} total`).to.equal(expected.length);
        expect(
          page.agents.map((a) => a.uid),
          `${query} offset ${offset}`,
        ).to.deep.equal(expected.slice(offset, offset + 40));
      }
    }
    bus.close();
  });

  it('leaves the ids the registry holds out in the database, so a page of others reads only their rows', async () => {
    const stored = Array.from({ length: 2500 }, (_, i) => agent(i + 1));
    for (let i = 0; i < stored.length; i += 500) await store.writer.saveAgents(stored.slice(i, i + 500));
    let rowsRead = 0;
    const counting = {
      query: async (config: pg.QueryConfig) => {
        const result = await store.pools.read.query(config);
        rowsRead += result.rows.length;
        return result;
      },
    } as unknown as pg.Pool;
    const { createPgStoredLists } = await import('../../../src/persistence/agents/pgStoredLists.ts');
    lists = createPgStoredLists({
      pool: counting,
      events$: new Subject<FleetEvent>(),
      now: () => store.clock.now,
      logger: silentLogger(),
      disconnectAfterMs: 45_000,
    });
    // This replica holds every stored agent but the last.
    const held = stored.slice(0, -1).map((a) => a.uid);
    const visited: string[] = [];
    await lists.scan(matchAll, heldIds(held), (a) => void visited.push(a.uid), 100);
    expect(visited).to.deep.equal([uidOf(2500)]);
    expect(rowsRead).to.equal(1);
  });
});
