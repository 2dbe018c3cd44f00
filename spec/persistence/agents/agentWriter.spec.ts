import { expect } from 'chai';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { createAgentWriter, writeConcurrency } from '../../../src/persistence/agents/agentWriter.ts';
import { WriteTimeoutError } from '../../../src/persistence/database/writeOp.ts';
import { agentColumns, sessionColumns } from '../../../src/persistence/agents/agentColumns.ts';
import { upsertAgentsSql, upsertSessionsSql } from '../../../src/persistence/agents/agentWriteSql.ts';
import { agent, storeFixture, uidOf, type StoreFixture } from './storeFixtures.ts';

describe('agent store on PostgreSQL (durability rules 11-17)', () => {
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
    store.writes.length = 0;
    store.clock.now = 1_700_000_002_000;
  });

  const row = async (n: number) =>
    (
      await store.query<Record<string, unknown>>('SELECT * FROM agents WHERE instance_uid = $1', [uidOf(n)])
    )[0];
  const sessionRow = async (n: number) =>
    (
      await store.query<Record<string, unknown>>('SELECT * FROM agent_session WHERE instance_uid = $1', [
        uidOf(n),
      ])
    )[0];
  const configRows = async (n: number) =>
    store.query<{ filename: string; body: string }>(
      'SELECT filename, body FROM agent_effective_config WHERE instance_uid = $1 ORDER BY filename',
      [uidOf(n)],
    );

  it('saves a batch in chunks and reads it back as the same agent records', async () => {
    const agents = [1, 2, 3, 4, 5].map((n) =>
      agent(n, { effectiveConfig: { 'a.yaml': { body: `x: ${n}`, contentType: 'text/yaml' } } }),
    );
    const result = await store.writer.saveAgents(agents);
    expect(result.failed).to.deep.equal([]);
    expect(result.applied.size).to.equal(5);
    const listed = await store.listed();
    expect(listed.map((a) => a.uid)).to.deep.equal(agents.map((a) => a.uid));
    const { effectiveConfig, packages, ...summary } = agents[0]!;
    const { effectiveConfig: listedConfig, ...listedSummary } = listed[0]!;
    expect(listedConfig).to.equal(null);
    expect({ ...listedSummary, session: { ...listedSummary.session, connectionId: 7 } }).to.deep.equal({
      ...summary,
      packages: null,
    });
    expect(packages).to.equal(null);
    const detail = await store.reader.getAgent(uidOf(1));
    expect(detail?.effectiveConfig).to.deep.equal(effectiveConfig);
  });

  it('keeps the full unsigned 64-bit capabilities and sequence number', async () => {
    const max = (1n << 64n) - 1n;
    await store.writer.saveAgents([agent(1, { capabilities: max, sequenceNum: max })]);
    const stored = await store.reader.getAgent(uidOf(1));
    expect(stored?.capabilities).to.equal(max);
    expect(stored?.sequenceNum).to.equal(max);
  });

  it('updates a row only when the incoming last_seen is newer than the stored updated_at', async () => {
    await store.writer.saveAgents([agent(1, { lastSeen: 2000, health: null })]);
    const older = await store.writer.saveAgents([agent(1, { lastSeen: 1000, capabilities: 2n })]);
    expect(older.applied.size).to.equal(0);
    expect((await row(1))?.capabilities).to.equal('31');
    const newer = await store.writer.saveAgents([agent(1, { lastSeen: 3000, capabilities: 2n })]);
    expect([...newer.applied]).to.deep.equal([uidOf(1)]);
    expect((await row(1))?.capabilities).to.equal('2');
    expect(((await row(1))?.updated_at as Date).getTime()).to.equal(3000);
  });

  it('writes neither session nor configs when the guarded upsert changed no row (rule 12)', async () => {
    await store.writer.saveAgents([
      agent(1, { lastSeen: 2000, effectiveConfig: { 'a.yaml': { body: 'old', contentType: '' } } }),
    ]);
    await store.writer.saveAgents([
      agent(1, {
        lastSeen: 2000,
        connected: false,
        session: { ...agent(1).session, remoteAddr: '10.9.9.9:1' },
        effectiveConfig: { 'b.yaml': { body: 'new', contentType: '' } },
      }),
    ]);
    expect((await sessionRow(1))?.connected).to.equal(true);
    expect((await sessionRow(1))?.remote_addr).to.equal('10.0.0.1:4000');
    expect(await configRows(1)).to.deep.equal([{ filename: 'a.yaml', body: 'old' }]);
  });

  it('replaces effective config files wholesale on an applied save (rule 15)', async () => {
    await store.writer.saveAgents([
      agent(1, {
        lastSeen: 1000,
        effectiveConfig: {
          'a.yaml': { body: 'a', contentType: '' },
          'b.yaml': { body: 'b', contentType: '' },
        },
      }),
    ]);
    await store.writer.saveAgents([
      agent(1, { lastSeen: 2000, effectiveConfig: { 'c.yaml': { body: 'c', contentType: '' } } }),
    ]);
    expect(await configRows(1)).to.deep.equal([{ filename: 'c.yaml', body: 'c' }]);
  });

  it('writes first_seen on insert only (rule 13)', async () => {
    await store.writer.saveAgents([agent(1, { firstSeen: 500, lastSeen: 1000 })]);
    await store.writer.saveAgents([agent(1, { firstSeen: 1500, lastSeen: 2000 })]);
    expect(((await row(1))?.first_seen as Date).getTime()).to.equal(500);
  });

  it('soft-deletes once, never moving evicted_at, and hides the agent from reads (rules 5, 16)', async () => {
    await store.writer.saveAgents([agent(1, { lastSeen: 1000 }), agent(2, { lastSeen: 1000 })]);
    await store.writer.softDeleteAgents([{ uid: uidOf(1), lastSeen: 1000, at: 5000 }]);
    await store.writer.softDeleteAgents([{ uid: uidOf(1), lastSeen: 1000, at: 9000 }]);
    expect(((await row(1))?.evicted_at as Date).getTime()).to.equal(5000);
    expect((await store.listed()).map((a) => a.uid)).to.deep.equal([uidOf(2)]);
    expect(await store.reader.getAgent(uidOf(1))).to.equal(undefined);
  });

  it('does not soft-delete a row a sibling updated after the evicted copy was last seen', async () => {
    await store.writer.saveAgents([agent(1, { lastSeen: 3000 })]);
    const result = await store.writer.softDeleteAgents([{ uid: uidOf(1), lastSeen: 1000, at: 5000 }]);
    expect(result.applied.size).to.equal(0);
    expect((await row(1))?.evicted_at).to.equal(null);
  });

  it('makes an agent that comes back after eviction visible again', async () => {
    await store.writer.saveAgents([agent(1, { lastSeen: 1000 })]);
    await store.writer.softDeleteAgents([{ uid: uidOf(1), lastSeen: 1000, at: 5000 }]);
    await store.writer.saveAgents([agent(1, { lastSeen: 6000 })]);
    expect((await row(1))?.evicted_at).to.equal(null);
    expect((await store.reader.getAgent(uidOf(1)))?.lastSeen).to.equal(6000);
  });

  it('purges soft-deleted rows older than the retention with their session and configs (rule 17)', async () => {
    await store.writer.saveAgents([
      agent(1, { lastSeen: 1000, effectiveConfig: { 'a.yaml': { body: 'a', contentType: '' } } }),
      agent(2, { lastSeen: 1000 }),
      agent(3, { lastSeen: 1000 }),
    ]);
    await store.writer.softDeleteAgents([
      { uid: uidOf(1), lastSeen: 1000, at: 10_000 },
      { uid: uidOf(2), lastSeen: 1000, at: 50_000 },
    ]);
    expect(await store.writer.purge(60_000, 20_000)).to.equal(1);
    expect(await row(1)).to.equal(undefined);
    expect(await sessionRow(1)).to.equal(undefined);
    expect(await configRows(1)).to.deep.equal([]);
    expect(await row(2)).to.not.equal(undefined);
    expect(await row(3)).to.not.equal(undefined);
  });

  it('counts a stored agent connected only while its session row is fresh (rule 10)', async () => {
    await store.writer.saveAgents([agent(1, { lastSeen: 1000, connected: true })]);
    store.clock.now = 1000 + 45_000;
    expect((await store.listed())[0]?.connected).to.equal(true);
    store.clock.now = 1000 + 45_001;
    expect((await store.listed())[0]?.connected).to.equal(false);
  });

  it('writes a disconnect that kept last_seen, ordered by its connection change (rules 9, 14)', async () => {
    await store.writer.saveAgents([agent(1, { lastSeen: 1000, connected: true, connectionChangedAt: 500 })]);
    // The disconnect keeps last_seen and carries its own time.
    const disconnect = agent(1, { lastSeen: 1000, connected: false, connectionChangedAt: 2000 });
    expect([...(await store.writer.saveSessions([disconnect])).applied]).to.deep.equal([uidOf(1)]);
    expect((await sessionRow(1))?.connected).to.equal(false);
    // For the same last_seen, an earlier connection change says nothing new.
    await store.writer.saveSessions([
      agent(1, { lastSeen: 1000, connected: true, connectionChangedAt: 500 }),
    ]);
    expect((await sessionRow(1))?.connected).to.equal(false);
    // Writing the same pair again changes nothing either.
    expect((await store.writer.saveSessions([disconnect])).applied.size).to.equal(0);
  });

  it('never lets a copy last seen earlier overwrite a newer connection, however late its disconnect', async () => {
    // Replica B: the agent reconnected there at 3000 and was last heard from at 6000.
    await store.writer.saveAgents([agent(1, { lastSeen: 6000, connected: true, connectionChangedAt: 3000 })]);
    // Replica A last heard from it at 2000; its sweep noticed the silence only at 9000.
    const late = agent(1, { lastSeen: 2000, connected: false, connectionChangedAt: 9000 });
    expect((await store.writer.saveSessions([late])).applied.size).to.equal(0);
    expect((await sessionRow(1))?.connected).to.equal(true);
    expect(((await sessionRow(1))?.connection_changed_at as Date).getTime()).to.equal(3000);
  });

  it("keeps a quiet agent connected by its holder's alive time, which never lets an earlier copy win (rules 10, 11)", async () => {
    // Held by A, connected at 500, last message at 1000; its socket then answered pings.
    const held = agent(1, { lastSeen: 1000, connected: true, connectionChangedAt: 500 });
    await store.writer.saveAgents([held]);
    expect([
      ...(await store.writer.saveSessions([held], new Map([[held.uid, 40_000]]))).applied,
    ]).to.deep.equal([uidOf(1)]);
    // The agent row keeps its last_seen (rule 11); the session row carries the alive time.
    expect(((await row(1))?.updated_at as Date).getTime()).to.equal(1000);
    expect(((await sessionRow(1))?.updated_at as Date).getTime()).to.equal(1000);
    expect(((await sessionRow(1))?.alive_at as Date).getTime()).to.equal(40_000);
    store.clock.now = 40_000 + 45_000;
    expect((await store.listed())[0]?.connected).to.equal(true);
    store.clock.now = 40_000 + 45_001;
    expect((await store.listed())[0]?.connected).to.equal(false);
    // An earlier alive time of the same copy says nothing new.
    expect((await store.writer.saveSessions([held], new Map([[held.uid, 30_000]]))).applied.size).to.equal(0);
    // A sibling that heard a message later wins, whatever alive time A writes after it.
    await store.writer.saveSessions([
      agent(1, { lastSeen: 2000, connected: true, connectionChangedAt: 1500 }),
    ]);
    expect((await store.writer.saveSessions([held], new Map([[held.uid, 90_000]]))).applied.size).to.equal(0);
    expect(((await sessionRow(1))?.alive_at as Date).getTime()).to.equal(2000);
    // A's disconnect of its copy (same last_seen 1000) does not reach B's row either.
    const cut = agent(1, { lastSeen: 1000, connected: false, connectionChangedAt: 95_000 });
    expect((await store.writer.saveSessions([cut])).applied.size).to.equal(0);
    expect((await sessionRow(1))?.connected).to.equal(true);
  });

  it('refreshes a session and saves an agent with unchanged attributes as heap-only updates', async () => {
    // An update that changes an indexed column adds an entry to every index of its table; the
    // session refresh (every connected agent, every keepalive) and a health flip must not.
    await store.writer.saveAgents([agent(1, { lastSeen: 1000 })]);
    const client = await db.client();
    try {
      await client.query('BEGIN');
      const refreshed = await client.query(upsertSessionsSql(sessionColumns([agent(1, { lastSeen: 3000 })])));
      expect(refreshed.rowCount).to.equal(1);
      const flipped = await client.query(
        upsertAgentsSql(
          agentColumns([
            agent(1, {
              lastSeen: 4000,
              health: {
                healthy: false,
                startTimeNanos: 0n,
                lastError: 'down',
                status: '',
                statusTimeNanos: 0n,
                components: {},
              },
            }),
          ]),
        ),
      );
      expect(flipped.rowCount).to.equal(1);
      const { rows } = await client.query<{ session: string; agents: string }>(
        `SELECT pg_stat_get_xact_tuples_hot_updated('agent_session'::regclass) AS session,
                pg_stat_get_xact_tuples_hot_updated('agents'::regclass) AS agents`,
      );
      expect(rows[0]).to.deep.equal({ session: '1', agents: '1' });
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  });

  it('stores text PostgreSQL cannot hold (NUL, lone surrogates) in a replaced form instead of failing the batch', async () => {
    const bad = agent(1, {
      description: { identifying: { 'k\0': 'v\0\uD800' }, nonIdentifying: {} },
      effectiveConfig: { 'a\0': { body: 'b\0', contentType: '' }, 'a\uD800': { body: 'c', contentType: '' } },
    });
    const result = await store.writer.saveAgents([bad, agent(2)]);
    expect(result.failed).to.deep.equal([]);
    const stored = await store.reader.getAgent(uidOf(1));
    expect(stored?.description?.identifying).to.deep.equal({ 'k\uFFFD': 'v\uFFFD\uFFFD' });
    expect(Object.keys(stored?.effectiveConfig ?? {})).to.deep.equal(['a\uFFFD']);
  });

  it('times every write attempt by operation', async () => {
    await store.writer.saveAgents([agent(1)]);
    await store.writer.saveSessions([agent(1)]);
    await store.writer.softDeleteAgents([{ uid: uidOf(1), lastSeen: 1, at: 2 }]);
    expect(store.writes).to.deep.equal([
      { op: 'save_agent', ok: true },
      { op: 'save_session', ok: true },
      { op: 'soft_delete_agent', ok: true },
    ]);
  });

  it('cuts a write off at the write timeout, retries a bounded number of times, then reports the agents failed', async () => {
    await store.writer.saveAgents([agent(1, { lastSeen: 1000 })]);
    const blocker = await db.client();
    try {
      // Another session holds the row lock: the guarded upsert cannot finish.
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM agents WHERE instance_uid = $1 FOR UPDATE', [uidOf(1)]);
      const writes: { op: string; ok: boolean }[] = [];
      const writer = createAgentWriter(store.pools.write, {
        policy: { timeoutMs: 300, retries: 2, backoffMs: 10 },
        observe: (op, _s, ok) => writes.push({ op, ok }),
      });
      const result = await writer.saveAgents([agent(1, { lastSeen: 2000 })]);
      expect(result.failed).to.deep.equal([uidOf(1)]);
      expect(result.error).to.be.instanceOf(WriteTimeoutError);
      expect(writes).to.deep.equal([1, 2, 3].map(() => ({ op: 'save_agent', ok: false })));
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    // The abandoned attempts were rolled back, and the pool still works.
    expect(((await row(1))?.updated_at as Date).getTime()).to.equal(1000);
    expect((await store.writer.saveAgents([agent(1, { lastSeen: 3000 })])).applied.size).to.equal(1);
  });

  it('round-trips text with quotes, backslashes, braces, commas and the word NULL', async () => {
    const tricky = ['say "hi"', 'C:\\path\\', '{a,b}', 'NULL', '', ' spaced ', 'ü → 😀'];
    const attrs = Object.fromEntries(tricky.map((v, i) => [`k${i}`, v]));
    const files = Object.fromEntries(tricky.map((v, i) => [`f${i}${v}`, { body: v, contentType: v }]));
    await store.writer.saveAgents([
      agent(1, {
        description: { identifying: attrs, nonIdentifying: {} },
        effectiveConfig: files,
        missingAttributes: tricky,
        session: { ...agent(1).session, remoteAddr: tricky[0]!, tlsSubject: tricky[1]! },
      }),
    ]);
    const stored = await store.reader.getAgent(uidOf(1));
    expect(stored?.description?.identifying).to.deep.equal(attrs);
    expect(stored?.effectiveConfig).to.deep.equal(files);
    expect(stored?.missingAttributes).to.deep.equal(tricky);
    expect([stored?.session.remoteAddr, stored?.session.tlsSubject]).to.deep.equal([tricky[0], tricky[1]]);
  });
});

describe('flush chunks written at once (database.write_concurrency)', () => {
  it('writes as many as configured, keeping one writer connection for everything else', () => {
    expect(writeConcurrency(5, 2), 'the default with pool_max 10').to.equal(2);
    expect(writeConcurrency(5, 8)).to.equal(4);
    expect(writeConcurrency(2, 2)).to.equal(1);
    expect(writeConcurrency(1, 2), 'a single writer connection still flushes').to.equal(1);
  });
});
