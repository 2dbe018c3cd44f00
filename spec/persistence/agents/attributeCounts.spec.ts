import { expect } from 'chai';
import type pg from 'pg';
import { NEVER } from 'rxjs';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { createAgentWriter } from '../../../src/persistence/agents/agentWriter.ts';
import { createPgStoredLists } from '../../../src/persistence/agents/pgStoredLists.ts';
import { heldIds } from '../../../src/persistence/agents/storeReader.ts';
import { parseFleetQuery, type FleetFilter } from '../../../src/projections/filter/fleetFilter.ts';
import { attributeOf, type AgentState } from '../../../src/projections/agent/agentState.ts';
import { agent, storeFixture, uidOf, type StoreFixture } from './storeFixtures.ts';

// migrations/00021: the counts of attribute values the database keeps beside the agent rows, and
// the list totals read from them. The oracle is the service's own attributeOf over the agents as
// a list reads them back.

const described = (
  n: number,
  identifying: Record<string, string>,
  nonIdentifying: Record<string, string>,
  lastSeen: number,
) => agent(n, { lastSeen, description: { identifying, nonIdentifying } });

function filterOf(text: string): FleetFilter {
  const parsed = parseFleetQuery(new URLSearchParams(text));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.filter;
}

describe('attribute value counts kept by PostgreSQL (fleet list totals)', () => {
  let db: TestDatabase;
  let store: StoreFixture;
  let lastSeen = 1_700_000_001_000;

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

  /** The counts table as rows "key=value n", counted keys only. */
  const counts = async () =>
    (
      await store.query<{ key: string; value: string; agents: string }>(
        `SELECT c.key, c.value, c.agents FROM agent_attribute_counts c
         JOIN agent_attribute_keys k ON k.key = c.key AND k.counted ORDER BY 1, 2`,
      )
    ).map((r) => `${r.key}=${r.value} ${r.agents}`);

  /** What the counts should be: attributeOf over every live stored agent, for `keys`. */
  const expected = async (keys: readonly string[]) => {
    const tally = new Map<string, number>();
    for (const a of await store.listed())
      for (const key of keys) {
        const v = attributeOf(a, key);
        if (v !== undefined) tally.set(`${key}=${v}`, (tally.get(`${key}=${v}`) ?? 0) + 1);
      }
    return [...tally].map(([kv, n]) => `${kv} ${n}`).sort();
  };

  /** The database-backed lists over `pool` (a spec's wrapper of the read pool). */
  const listsOver = (pool: pg.Pool) =>
    createPgStoredLists({
      pool,
      events$: NEVER,
      now: () => store.clock.now,
      logger: silentLogger(),
      disconnectAfterMs: 45_000,
    });

  const save = async (agents: AgentState[]) => {
    const result = await store.writer.saveAgents(agents);
    expect(result.failed).to.deep.equal([]);
  };

  it('follows inserts, changed attributes, soft deletes, returns, purges and deletes', async () => {
    const keys = ['service.name', 'env', 'region'];
    const fleet = (ns: number[], env: (n: number) => string) =>
      ns.map((n) =>
        described(
          n,
          { 'service.name': `svc-${n % 3}` },
          { env: env(n), 'service.name': 'shadowed' },
          ++lastSeen,
        ),
      );
    await save(fleet([1, 2, 3, 4, 5, 6, 7, 8, 9], (n) => (n % 2 ? 'prod' : 'dev')));
    expect(await counts()).to.deep.equal(await expected(keys));
    expect(await counts())
      .to.include('env=prod 5')
      .and.include('service.name=svc-0 3');

    // Changed attributes: env moves, a new key appears, an identifying value moves to another.
    await save(
      [2, 3, 4].map((n) =>
        described(n, { 'service.name': `svc-${(n + 1) % 3}` }, { env: 'staging', region: 'eu' }, ++lastSeen),
      ),
    );
    // A non-string identifying value leaves the non-identifying string as the attribute.
    await store.query(
      `UPDATE agents SET identifying = '{"service.name": 7}', non_identifying = '{"service.name": "plain"}'
       WHERE instance_uid = $1`,
      [uidOf(5)],
    );
    expect(await counts()).to.deep.equal(await expected(keys));
    expect(await counts())
      .to.include('service.name=plain 1')
      .and.include('region=eu 3');

    await store.writer.softDeleteAgents([6, 7].map((n) => ({ uid: uidOf(n), lastSeen, at: lastSeen })));
    expect(await counts()).to.deep.equal(await expected(keys));
    expect(await counts()).not.to.include('env=dev 4');

    // Agent 6 returns (the upsert clears evicted_at); agent 7 stays soft-deleted and is purged.
    await save([described(6, { 'service.name': 'svc-back' }, { env: 'dev' }, ++lastSeen)]);
    expect(await store.writer.purge(lastSeen + 10_000, 1)).to.equal(1);
    await store.query('DELETE FROM agents WHERE instance_uid = $1', [uidOf(8)]);
    expect(await counts()).to.deep.equal(await expected(keys));
    expect(await counts()).to.include('service.name=svc-back 1');

    // Counts that reach zero are gone, not left at zero.
    const zero = await store.query('SELECT * FROM agent_attribute_counts WHERE agents <= 0');
    expect(zero).to.deep.equal([]);
  });

  it('stays exact under writers saving the same values at once', async () => {
    const writers = [0, 1, 2, 3].map(() =>
      createAgentWriter(store.pools.write, {
        policy: { timeoutMs: 5000, retries: 1, backoffMs: 10 },
        observe: () => undefined,
        chunkSize: 7,
      }),
    );
    for (let round = 0; round < 3; round++)
      await Promise.all(
        writers.map((w, i) =>
          w.saveAgents(
            Array.from({ length: 60 }, (_, k) => {
              const n = i * 60 + k;
              return described(
                n,
                { 'service.name': `svc-${(n + round) % 4}` },
                { zone: `z-${k % 5}` },
                ++lastSeen,
              );
            }),
          ),
        ),
      );
    expect(await counts()).to.deep.equal(await expected(['service.name', 'zone']));
  });

  it('stops counting a key past 1,000 values, and a list over it is still exact', async () => {
    await save(
      Array.from({ length: 1001 }, (_, n) =>
        described(n, { 'service.name': 'one' }, { 'host.name': `host-${n}` }, ++lastSeen),
      ),
    );
    const [host] = await store.query<{ counted: boolean }>(
      `SELECT counted FROM agent_attribute_keys WHERE key = 'host.name'`,
    );
    expect(host?.counted).to.equal(false);
    expect(await store.query(`SELECT * FROM agent_attribute_counts WHERE key = 'host.name'`)).to.deep.equal(
      [],
    );
    expect(await counts()).to.deep.equal(['service.name=one 1001']);
    // Values of an uncounted key never come back, even when few agents have it again.
    await store.query(`DELETE FROM agents WHERE instance_uid > $1`, [uidOf(3)]);
    await save([described(2, { 'service.name': 'one' }, { 'host.name': 'host-x' }, ++lastSeen)]);
    expect(await store.query(`SELECT * FROM agent_attribute_counts WHERE key = 'host.name'`)).to.deep.equal(
      [],
    );
    const lists = store.lists();
    try {
      expect(await lists.count(filterOf('host.name=host-x'), heldIds([]))).to.equal(1);
      expect(
        await lists.count(filterOf(`match=${encodeURIComponent('host.name=~"host-.*"')}`), heldIds([])),
      ).to.equal(4);
    } finally {
      lists.stop();
    }
  });

  it('empties with the agents table (TRUNCATE)', async () => {
    await save([described(1, { 'service.name': 'a' }, {}, ++lastSeen)]);
    await store.query('TRUNCATE agents CASCADE');
    expect(await store.query('SELECT * FROM agent_attribute_counts')).to.deep.equal([]);
    await save([described(1, { 'service.name': 'a' }, {}, ++lastSeen)]);
    expect(await counts()).to.deep.equal(['service.name=a 1']);
  });

  it('reads a regex list while its values are judged, and again when they changed', async () => {
    await save(
      Array.from({ length: 30 }, (_, n) => described(n, { 'service.name': `svc-${n % 3}` }, {}, ++lastSeen)),
    );
    const isValuesRead = (text: string) => text.includes('FROM agent_attribute_keys k');
    const isPageRead = (text: string) => text.includes('ORDER BY a.instance_uid');
    const statements: string[] = [];
    /** While set, the read of the counted values waits for it; `asked` learns of each page read. */
    let hold: Promise<void> | undefined;
    let asked: (() => void) | undefined;
    const pool = {
      query: async (config: pg.QueryConfig) => {
        statements.push(config.text);
        if (isPageRead(config.text)) asked?.();
        if (isValuesRead(config.text) && hold !== undefined) await hold;
        return store.pools.read.query(config);
      },
    } as unknown as pg.Pool;
    const lists = listsOver(pool);
    const list = async (filter: FleetFilter) => {
      const seen: string[] = [];
      const [, total] = await Promise.all([
        lists.scan(filter, heldIds([]), (a) => void seen.push(a.uid), 100),
        lists.count(filter, heldIds([])),
      ]);
      return { seen, total };
    };
    const regex = `match=${encodeURIComponent('service.name=~"svc-[12].*"')}`;
    const svc12 = Array.from({ length: 30 }, (_, n) => n)
      .filter((n) => n % 3 !== 0)
      .map(uidOf);
    try {
      // First sight of the term: the page is read after the values.
      expect(await list(filterOf(regex))).to.deep.equal({ seen: svc12, total: 20 });
      const first = statements.splice(0);
      expect(first.findIndex(isPageRead)).to.be.greaterThan(first.findIndex(isValuesRead));
      // Next time the page is asked while the values are still being read, and kept: they agree.
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      const pageAsked = new Promise<void>((resolve) => (asked = resolve));
      const answer = list(filterOf(regex));
      await pageAsked;
      release();
      expect(await answer).to.deep.equal({ seen: svc12, total: 20 });
      expect(statements.splice(0).filter(isPageRead)).to.have.length(1);
      [hold, asked] = [undefined, undefined];
      // A new matching value: the early page is thrown away and read again with it.
      await save([described(30, { 'service.name': 'svc-12' }, {}, ++lastSeen)]);
      expect(await list(filterOf(regex))).to.deep.equal({ seen: [...svc12, uidOf(30)].sort(), total: 21 });
      expect(statements.splice(0).filter(isPageRead)).to.have.length(2);
    } finally {
      lists.stop();
    }
  });

  it('answers a one-term total from the counts, less the held copies, without counting agent rows', async () => {
    await save(
      Array.from({ length: 30 }, (_, n) =>
        described(n, { 'service.name': `svc-${n % 3}` }, { env: 'prod' }, ++lastSeen),
      ),
    );
    const statements: pg.QueryConfig[] = [];
    const pool = {
      query: (config: pg.QueryConfig) => (statements.push(config), store.pools.read.query(config)),
    } as unknown as pg.Pool;
    const totals = () => statements.filter((s) => /SELECT count\(\*\)::float8/.test(s.text));
    /**
     * Whether the row count (the statement's last initial subplan: countedTotalOrRows's fallback)
     * ran: PostgreSQL's own account of executing the statement again.
     */
    const countedRows = async (config: pg.QueryConfig) => {
      const explained = await store.pools.read.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
        text: `EXPLAIN (ANALYZE, FORMAT JSON) ${config.text}`,
        values: config.values ?? [],
      });
      const initPlans = (explained.rows[0]!['QUERY PLAN'][0].Plan.Plans ?? []).filter(
        (p) => p['Parent Relationship'] === 'InitPlan',
      );
      return initPlans.at(-1)!['Actual Loops'] > 0;
    };
    const lists = listsOver(pool);
    try {
      const regex = `match=${encodeURIComponent('service.name=~"svc-[12]"')}`;
      expect(await lists.count(filterOf('service.name=svc-1'), heldIds([]))).to.equal(10);
      expect(await lists.count(filterOf(regex), heldIds([]))).to.equal(20);
      // Agents the registry holds are taken off: 0 and 3 hold svc-0, 1 and 4 hold svc-1.
      expect(await lists.count(filterOf(regex), heldIds([uidOf(0), uidOf(1), uidOf(3), uidOf(4)]))).to.equal(
        18,
      );
      // One statement per total, with the counts first and the rows never counted.
      expect(totals()).to.have.length(3);
      expect(totals().every((s) => s.text.includes('FROM agent_attribute_counts'))).to.equal(true);
      for (const total of totals()) expect(await countedRows(total)).to.equal(false);
      // Holding more than half the counted matches, the replica counts the rows it does not hold,
      // in the same statement.
      statements.length = 0;
      const most = Array.from({ length: 15 }, (_, n) => uidOf(n + 10));
      expect(await lists.count(filterOf(regex), heldIds(most))).to.equal(10);
      expect(totals()).to.have.length(1);
      expect(await countedRows(totals()[0]!)).to.equal(true);
      // Two terms are counted from the rows, with the regex's values as containments.
      statements.length = 0;
      expect(await lists.count(filterOf(`${regex}&env=prod`), heldIds([]))).to.equal(20);
      expect(totals()).to.have.length(1);
      expect(totals()[0]!.text).not.to.include('agent_attribute_counts');
    } finally {
      lists.stop();
    }
  });
});

/** A node of EXPLAIN (FORMAT JSON)'s plan, as far as the spec reads it. */
interface PlanNode {
  readonly 'Parent Relationship'?: string;
  readonly 'Actual Loops': number;
  readonly Plans?: readonly PlanNode[];
}
