// Lists of a replica holding most of the stored fleet (heldRows.ts, agents.held_by): the stored
// copies of the agents it holds are left out by the row's held_by, only the other held ids travel
// with a list, and the totals stay exact when an agent moves between replicas.

import { expect } from 'chai';
import type pg from 'pg';
import { Subject } from 'rxjs';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { createAgentWriter, type AgentWriter } from '../../../src/persistence/agents/agentWriter.ts';
import { confirmingHeld, createHeldRows, type HeldRows } from '../../../src/persistence/agents/heldRows.ts';
import { createPgStoredLists, type PgStoredLists } from '../../../src/persistence/agents/pgStoredLists.ts';
import { heldIds } from '../../../src/persistence/agents/storeReader.ts';
import { matchAll } from '../../../src/projections/filter/fleetFilter.ts';
import { testSession } from '../../support/agentFixture.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { agent, storeFixture, uidOf, type StoreFixture } from './storeFixtures.ts';

const connected = (uid: InstanceUid, at = 1): FleetEvent => ({
  type: 'AgentConnected',
  at,
  data: { uid, session: testSession },
});
const disconnected = (uid: InstanceUid, at = 1): FleetEvent => ({
  type: 'AgentDisconnected',
  at,
  data: { uid, reason: 'connection_closed' },
});

describe('held rows: who last wrote an agent, so lists leave its copy out by index', () => {
  it('confirms an agent only while it is connected here, from a write after its connect', () => {
    const bus = new Subject<FleetEvent>();
    const held = createHeldRows('a', bus);
    const [x, y] = [uidOf(1), uidOf(2)];
    held.confirm([x]);
    expect(held.confirmed(x), 'written but not connected here').to.equal(false);
    bus.next(connected(x));
    expect(held.confirmed(x), 'connected, not written since').to.equal(false);
    held.confirm([x, y]);
    expect([held.confirmed(x), held.confirmed(y)]).to.deep.equal([true, false]);
    bus.next(connected(x));
    expect(held.confirmed(x), 'connected again: another replica may have written it meanwhile').to.equal(
      false,
    );
    held.confirm([x]);
    bus.next(disconnected(x));
    expect(held.confirmed(x), 'disconnected').to.equal(false);
    bus.next(connected(x));
    held.confirm([x]);
    bus.next({ type: 'AgentEvicted', at: 2, data: { uid: x, lastSeen: 1 } });
    expect(held.confirmed(x), 'evicted').to.equal(false);
    held.stop();
  });

  it('keeps the members a list must name by id: connected and unwritten, or held disconnected', () => {
    const bus = new Subject<FleetEvent>();
    const held = createHeldRows('a', bus);
    const [x, y, z] = [uidOf(1), uidOf(2), uidOf(3)];
    bus.next(disconnected(z));
    expect(held.members, 'a disconnect of an agent never connected here holds nothing').to.equal(0);
    bus.next(connected(y));
    bus.next(connected(x));
    expect(held.unconfirmed(), 'ascending').to.deep.equal([x, y]);
    const before = held.unconfirmed();
    expect(held.unconfirmed(), 'the same array while nothing changed').to.equal(before);
    held.confirm([x, y, z]);
    expect([held.members, held.unconfirmed()]).to.deep.equal([2, []]);
    bus.next(disconnected(x));
    expect(held.unconfirmed(), 'held disconnected: another replica may write it').to.deep.equal([x]);
    bus.next(connected(y));
    expect(held.unconfirmed(), 'connected again').to.deep.equal([x, y]);
    bus.next({ type: 'AgentEvicted', at: 2, data: { uid: x, lastSeen: 1 } });
    expect([held.members, held.unconfirmed()], 'evicted: no longer held').to.deep.equal([1, [y]]);
    held.stop();
  });

  describe('with PostgreSQL', () => {
    let db: TestDatabase;
    let store: StoreFixture;
    let bus: Subject<FleetEvent>;
    let held: HeldRows;
    let writerA: AgentWriter;
    let writerB: AgentWriter;
    let lists: PgStoredLists;
    /** The id arrays each list statement sent, by their element counts. */
    let idsSent: number[];
    let rowsRead: number;

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
      bus = new Subject<FleetEvent>();
      held = createHeldRows('replica-a', bus);
      const options = { policy: { timeoutMs: 5000, retries: 1, backoffMs: 10 }, observe: () => undefined };
      writerA = confirmingHeld(createAgentWriter(store.pools.write, { ...options, heldBy: held.name }), held);
      writerB = createAgentWriter(store.pools.write, { ...options, heldBy: 'replica-b' });
      idsSent = [];
      rowsRead = 0;
      const counting = {
        query: async (config: pg.QueryConfig) => {
          for (const v of config.values ?? [])
            if (typeof v === 'string' && v.startsWith('{'))
              idsSent.push(v === '{}' ? 0 : v.split(',').length);
          const result = await store.pools.read.query(config);
          rowsRead += result.rows.length;
          return result;
        },
      } as unknown as pg.Pool;
      lists = createPgStoredLists({
        pool: counting,
        events$: bus,
        now: () => store.clock.now,
        logger: silentLogger(),
        disconnectAfterMs: 45_000,
        held,
      });
    });
    afterEach(() => {
      lists.stop();
      held.stop();
    });

    /** The registry of replica A, as storedLists.ts hands it to the store: ascending ids. */
    const page = async (local: readonly InstanceUid[]) => {
      const held = heldIds(local);
      const visited: string[] = [];
      await lists.scan(matchAll, held, (a) => void visited.push(a.uid), 100);
      return { visited, count: await lists.count(matchAll, held) };
    };

    it('sends only the ids whose rows do not name it, and reads only the others’ rows', async () => {
      const mine = Array.from({ length: 1500 }, (_, i) => agent(i + 1));
      for (const a of mine) bus.next(connected(a.uid));
      await writerA.saveAgents(mine);
      // A sibling's agent, and one agent A holds whose write has not committed yet.
      await writerB.saveAgents([agent(2000)]);
      bus.next(connected(uidOf(1600)));
      const local = [...mine.map((a) => a.uid), uidOf(1600)];
      const { visited, count } = await page(local);
      expect(visited).to.deep.equal([uidOf(2000)]);
      expect(count).to.equal(1);
      expect(rowsRead, 'one row of the page, one count').to.equal(2);
      expect(idsSent, 'only the unconfirmed id, in the page and the count').to.deep.equal([1, 1]);
    });

    it('keeps totals exact when an agent moves to a sibling and back before the next write', async () => {
      const [x, y] = [agent(1), agent(2)];
      bus.next(connected(x.uid));
      bus.next(connected(y.uid));
      await writerA.saveAgents([x, y]);
      expect(await page([x.uid, y.uid])).to.deep.equal({ visited: [], count: 0 });

      // x leaves A (A keeps its disconnected copy) and connects to B, which writes it later.
      bus.next(disconnected(x.uid));
      await writerB.saveAgents([agent(1, { lastSeen: x.lastSeen + 5000 })]);
      expect(await page([x.uid, y.uid]), 'A’s copy wins, B’s row is left out by id').to.deep.equal({
        visited: [],
        count: 0,
      });

      // x comes back to A: its row still names B until A writes it.
      bus.next(connected(x.uid, 2));
      expect(await page([x.uid, y.uid])).to.deep.equal({ visited: [], count: 0 });
      await writerA.saveAgents([agent(1, { lastSeen: x.lastSeen + 9000 })]);
      expect(held.confirmed(x.uid)).to.equal(true);
      expect(await page([x.uid, y.uid])).to.deep.equal({ visited: [], count: 0 });

      // A restarts (no registry, a new name): every row, A's old ones included, is listed.
      const restarted = createPgStoredLists({
        pool: store.pools.read,
        events$: new Subject<FleetEvent>(),
        now: () => store.clock.now,
        logger: silentLogger(),
        disconnectAfterMs: 45_000,
        held: createHeldRows('replica-a2', new Subject<FleetEvent>()),
      });
      try {
        expect(await restarted.count(matchAll, heldIds([]))).to.equal(2);
      } finally {
        restarted.stop();
      }
    });
  });
});
