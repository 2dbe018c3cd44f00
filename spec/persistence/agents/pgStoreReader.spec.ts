import { expect } from 'chai';
import { createPgStoreReader } from '../../../src/persistence/agents/pgStoreReader.ts';
import type { AgentStoreReader } from '../../../src/persistence/agents/storeReader.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { eventually } from '../eventually.ts';
import { agent, storeFixture, uidOf, type StoreFixture } from './storeFixtures.ts';

describe('store list snapshot (fleet lists share a background-refreshed read)', () => {
  let db: TestDatabase;
  let store: StoreFixture;
  let reader: AgentStoreReader;
  const clock = { now: 1_000_000 };

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
    clock.now = 1_000_000;
    reader = createPgStoreReader(store.pools.read, {
      now: () => clock.now,
      disconnectAfterMs: 45_000,
      listFreshMs: 1000,
      listMaxStaleMs: 10_000,
    });
  });

  const uids = async () => (await reader.listAgents()).map((a) => a.uid);

  it('reuses a fresh snapshot without reading the store', async () => {
    await store.writer.saveAgents([agent(1)]);
    expect(await uids()).to.deep.equal([uidOf(1)]);
    await store.writer.saveAgents([agent(2)]);
    clock.now += 999;
    expect(await uids()).to.deep.equal([uidOf(1)]);
  });

  it('answers from an aging snapshot at once and refreshes it in the background', async () => {
    await store.writer.saveAgents([agent(1)]);
    await uids();
    await store.writer.saveAgents([agent(2)]);
    clock.now += 5000;
    expect(await uids()).to.deep.equal([uidOf(1)]);
    await eventually(async () => (await uids()).length === 2, 'the background refresh');
  });

  it('waits for a fresh read when the snapshot is older than the maximum', async () => {
    await store.writer.saveAgents([agent(1)]);
    await uids();
    await store.writer.saveAgents([agent(2)]);
    clock.now += 10_001;
    expect(await uids()).to.deep.equal([uidOf(1), uidOf(2)]);
  });

  it('drops the snapshot when a read fails, so lists fail until the store answers again', async () => {
    await store.writer.saveAgents([agent(1)]);
    await uids();
    await store.query('ALTER TABLE agents RENAME TO agents_away');
    try {
      clock.now += 2000;
      // Served from the snapshot while the background read fails...
      expect(await uids()).to.deep.equal([uidOf(1)]);
      // ...which drops it: from then on lists wait for a read, and fail.
      await eventually(
        () =>
          reader.listAgents().then(
            () => false,
            () => true,
          ),
        'a failing list',
      );
    } finally {
      await store.query('ALTER TABLE agents_away RENAME TO agents');
    }
    expect(await uids()).to.deep.equal([uidOf(1)]);
  });
});
