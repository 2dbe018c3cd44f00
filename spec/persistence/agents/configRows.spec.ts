import { expect } from 'chai';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { agent, storeFixture, uidOf, type StoreFixture } from './storeFixtures.ts';

describe('effective-config rows on PostgreSQL (rule 15)', () => {
  let db: TestDatabase;
  let store: StoreFixture;

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
  });

  /** Each file's body and the transaction that last wrote its row. */
  const configRows = async (n: number) =>
    store.query<{ filename: string; body: string; xmin: string }>(
      'SELECT filename, body, xmin::text FROM agent_effective_config WHERE instance_uid = $1 ORDER BY filename',
      [uidOf(n)],
    );
  const files = (bodies: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(bodies).map(([name, body]) => [name, { body, contentType: 'text/yaml' }]),
    );

  it('leaves the rows of unchanged files unwritten and rewrites only the changed ones', async () => {
    await store.writer.saveAgents([
      agent(1, { lastSeen: 1000, effectiveConfig: files({ 'a.yaml': 'a', 'b.yaml': 'b' }) }),
    ]);
    const [a1, b1] = await configRows(1);
    const saved = await store.writer.saveAgents([
      agent(1, { lastSeen: 2000, effectiveConfig: files({ 'a.yaml': 'a', 'b.yaml': 'b2' }) }),
    ]);
    expect([...saved.applied]).to.deep.equal([uidOf(1)]);
    const [a2, b2] = await configRows(1);
    expect(a2).to.deep.equal(a1);
    expect(b2?.body).to.equal('b2');
    expect(b2?.xmin).to.not.equal(b1?.xmin);
  });

  it('deletes the files an agent no longer reports and keeps the others, across agents in one chunk', async () => {
    await store.writer.saveAgents([
      agent(1, { lastSeen: 1000, effectiveConfig: files({ 'a.yaml': 'a', 'b.yaml': 'b' }) }),
      agent(2, { lastSeen: 1000, effectiveConfig: files({ 'a.yaml': 'a', 'b.yaml': 'b' }) }),
      agent(3, { lastSeen: 1000, effectiveConfig: files({ 'a.yaml': 'a' }) }),
    ]);
    await store.writer.saveAgents([
      agent(1, { lastSeen: 2000, effectiveConfig: files({ 'b.yaml': 'b' }) }),
      agent(2, { lastSeen: 2000, effectiveConfig: files({ 'a.yaml': 'a', 'b.yaml': 'b' }) }),
      agent(3, { lastSeen: 2000, effectiveConfig: null }),
    ]);
    const names = async (n: number) => (await configRows(n)).map((r) => r.filename);
    expect(await names(1)).to.deep.equal(['b.yaml']);
    expect(await names(2)).to.deep.equal(['a.yaml', 'b.yaml']);
    // An agent whose record holds no effective config has no rows.
    expect(await names(3)).to.deep.equal([]);
  });
});
