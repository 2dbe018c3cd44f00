import { expect } from 'chai';
import type pg from 'pg';
import { Subject } from 'rxjs';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { agentColumns } from '../../../src/persistence/agents/agentColumns.ts';
import { upsertAgentsSql } from '../../../src/persistence/agents/agentWriteSql.ts';
import type { MirrorSync } from '../../../src/persistence/agents/mirrorSync.ts';
import { createPgStoreReader } from '../../../src/persistence/agents/pgStoreReader.ts';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { createNotifications } from '../../../src/persistence/database/notifications.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { eventually } from '../eventually.ts';
import { agent, listOf, storeFixture, uidOf, type StoreFixture } from './storeFixtures.ts';

describe('list mirror on PostgreSQL (stored agents for fleet lists)', () => {
  let db: TestDatabase;
  let store: StoreFixture;
  let mirror: MirrorSync | undefined;

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
  afterEach(async () => {
    await mirror?.stop();
    mirror = undefined;
  });

  const uids = (m: MirrorSync) => listOf(m, store.clock.now).map((a) => a.uid);

  it('loads every live stored agent first, then reads only what was written since', async () => {
    await store.writer.saveAgents([1, 2, 3].map((n) => agent(n)));
    await store.writer.softDeleteAgents([{ uid: uidOf(3), lastSeen: agent(3).lastSeen, at: 5000 }]);
    const rowsRead: number[] = [];
    const counting = {
      query: async (config: pg.QueryConfig) => {
        const result = await store.pools.read.query<unknown[]>(config);
        if (!config.text.includes('pg_snapshot_xmin')) rowsRead.push(result.rows.length);
        return result;
      },
    } as unknown as pg.Pool;
    const { createMirrorSync } = await import('../../../src/persistence/agents/mirrorSync.ts');
    const { noNotifications, handClock } = await import('./storeFixtures.ts');
    const { NEVER } = await import('rxjs');
    mirror = createMirrorSync({
      pool: counting,
      notifications: noNotifications,
      events$: NEVER,
      scheduler: handClock(store.clock),
      logger: silentLogger(),
      disconnectAfterMs: 45_000,
      reloadAfterMs: 3_600_000,
    });
    await mirror.start();
    expect(uids(mirror)).to.deep.equal([uidOf(1), uidOf(2)]);
    await mirror.catchUp();
    await store.writer.saveAgents([agent(4), agent(1, { lastSeen: agent(1).lastSeen + 1000 })]);
    await store.writer.softDeleteAgents([{ uid: uidOf(2), lastSeen: agent(2).lastSeen, at: 6000 }]);
    await mirror.catchUp();
    expect(uids(mirror)).to.deep.equal([uidOf(1), uidOf(4)]);
    expect(listOf(mirror, store.clock.now)[0]?.lastSeen).to.equal(agent(1).lastSeen + 1000);
    // The first read, an empty one, then the three agents written since.
    expect(rowsRead).to.deep.equal([2, 0, 3]);
  });

  it('loses no change when two writers commit out of order', async () => {
    mirror = store.mirror();
    await mirror.start();
    const [first, second] = [await db.client(), await db.client()];
    try {
      await first.query('BEGIN');
      await first.query(upsertAgentsSql(agentColumns([agent(1)])));
      await second.query('BEGIN');
      await second.query(upsertAgentsSql(agentColumns([agent(2)])));
      await second.query('COMMIT');
      await mirror.catchUp();
      expect(uids(mirror)).to.deep.equal([uidOf(2)]);
      await first.query('COMMIT');
      // The trap: agent 1's position is below one already read, so "rows past the highest position
      // seen" would never return it.
      const positions = await store.query<{ instance_uid: string; change_xid: string }>(
        'SELECT instance_uid, change_xid::text FROM agents ORDER BY instance_uid',
      );
      expect(BigInt(positions[0]!.change_xid) < BigInt(positions[1]!.change_xid)).to.equal(true);
      await mirror.catchUp();
      expect(uids(mirror)).to.deep.equal([uidOf(1), uidOf(2)]);
    } finally {
      await first.end();
      await second.end();
    }
  });

  it('serves no list while it cannot read, and serves again, changes included, once it caught up', async () => {
    mirror = store.mirror();
    await mirror.start();
    await store.writer.saveAgents([agent(1)]);
    await store.query('ALTER TABLE agents RENAME TO agents_away');
    try {
      await mirror.catchUp();
      const list = mirror.list(store.clock.now);
      expect(list.ok).to.equal(false);
      expect(String(!list.ok && list.error)).to.match(/agents/);
    } finally {
      await store.query('ALTER TABLE agents_away RENAME TO agents');
    }
    await mirror.catchUp();
    expect(uids(mirror)).to.deep.equal([uidOf(1)]);
  });

  it('serves no list once its last successful read is more than 10 seconds old', async () => {
    mirror = store.mirror();
    await mirror.start();
    store.clock.now += 10_000;
    expect(mirror.list(store.clock.now).ok).to.equal(true);
    store.clock.now += 1;
    expect(mirror.list(store.clock.now).ok).to.equal(false);
  });

  it('hides an agent this replica evicted until its soft delete reached the mirror, single reads too', async () => {
    const events = new Subject<FleetEvent>();
    mirror = store.mirror({ events$: events });
    const reader = createPgStoreReader(store.pools.read, {
      mirror,
      now: () => store.clock.now,
      disconnectAfterMs: 45_000,
    });
    const lastSeen = agent(1).lastSeen;
    await store.writer.saveAgents([agent(1), agent(2)]);
    await mirror.start();
    events.next({ type: 'AgentEvicted', at: 9000, data: { uid: uidOf(1), lastSeen } });
    // The row is still live: the flush has not soft-deleted it yet.
    expect(uids(mirror)).to.deep.equal([uidOf(2)]);
    expect(await reader.getAgent(uidOf(1))).to.equal(undefined);
    const list = mirror.list(store.clock.now);
    if (!list.ok) throw new Error('the mirror cannot list');
    expect([list.agents.size, list.agents.has(uidOf(1)), list.agents.has(uidOf(2))]).to.deep.equal([
      1,
      false,
      true,
    ]);
    await store.writer.softDeleteAgents([{ uid: uidOf(1), lastSeen, at: 9000 }]);
    events.next({ type: 'AgentsSoftDeleted', at: 9100, data: { uids: [uidOf(1)] } });
    await mirror.catchUp();
    expect(uids(mirror)).to.deep.equal([uidOf(2)]);
    // The agent comes back on a sibling: a newer row, listed.
    await store.writer.saveAgents([agent(1, { lastSeen: lastSeen + 5000 })]);
    await mirror.catchUp();
    expect(uids(mirror)).to.deep.equal([uidOf(1), uidOf(2)]);
    expect((await reader.getAgent(uidOf(1)))?.lastSeen).to.equal(lastSeen + 5000);
  });

  it('reads at once when a write is notified, without waiting for its timer', async () => {
    const notifications = createNotifications(connectionSettings({ ...db.config, pool_max: 2 }), {
      logger: silentLogger(),
    });
    mirror = store.mirror({ notifications, intervalMs: 3_600_000 });
    await notifications.start();
    try {
      await mirror.start();
      await store.writer.saveAgents([agent(7)]);
      await eventually(() => Promise.resolve(uids(mirror!).length === 1), 'the notified read', {
        timeoutMs: 2000,
        everyMs: 10,
      });
    } finally {
      await mirror.stop();
      await notifications.stop();
    }
  });

  it('reads everything again after it could not read for longer than the retention', async () => {
    mirror = store.mirror({ reloadAfterMs: 60_000 });
    await store.writer.saveAgents([agent(1), agent(2)]);
    await mirror.start();
    // The purge deleted a row whose soft delete this mirror never saw.
    await store.query('DELETE FROM agents WHERE instance_uid = $1', [uidOf(1)]);
    store.clock.now += 60_001;
    await mirror.catchUp();
    expect(uids(mirror)).to.deep.equal([uidOf(2)]);
  });
});
