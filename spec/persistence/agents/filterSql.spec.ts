// The fleet filter in SQL (filterSql.ts, regexSql.ts) against real PostgreSQL: for every filter
// kind, the database-backed list and count give exactly the set the in-memory matcher gives on the
// same stored agents, and the regexes handed to PostgreSQL agree with RE2 value by value.

import { expect } from 'chai';
import { RE2JS } from 're2js';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { parseFleetQuery, type FleetFilter } from '../../../src/projections/filter/fleetFilter.ts';
import { countSql } from '../../../src/persistence/agents/agentListSql.ts';
import { filterSql } from '../../../src/persistence/agents/filterSql.ts';
import { NEVER } from 'rxjs';
import { silentLogger } from '../../../src/io/logger.ts';
import { createPgStoredLists, type PgStoredLists } from '../../../src/persistence/agents/pgStoredLists.ts';
import { regexToPostgres } from '../../../src/persistence/agents/regexSql.ts';
import { heldIds, type HeldIds } from '../../../src/persistence/agents/storeReader.ts';
import { health } from '../../support/agentFixture.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { agent, storeFixture, uidOf, type StoreFixture } from './storeFixtures.ts';

/** A small deterministic generator, so a failure names a filter that fails again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

const names = [
  'svc-a',
  'svc-b',
  'svc-ab',
  'otelcol',
  'otelcol-contrib',
  'a.b',
  'a+b',
  'x y',
  'é-1',
  'line\nbreak',
  '',
];
const envs = ['prod', 'dev', 'prod-eu'];

function fleet(count: number, now: number): AgentState[] {
  const next = random(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  return Array.from({ length: count }, (_, n) => {
    const identifying: Record<string, string> = { 'service.name': pick(names) };
    const nonIdentifying: Record<string, string> = { 'host.name': `host-${n % 7}` };
    if (next() < 0.5) identifying.env = pick(envs);
    // The same key in both documents: the identifying value wins (attributeOf).
    if (next() < 0.3) nonIdentifying.env = pick(envs);
    if (next() < 0.2) nonIdentifying['service.name'] = pick(names);
    const reported = next() < 0.7;
    const lastSeen = now - (next() < 0.3 ? 120_000 : 1_000);
    return agent(n + 1, {
      description: next() < 0.1 ? null : { identifying, nonIdentifying },
      health: reported ? health(next() < 0.5) : null,
      connected: next() < 0.7,
      lastSeen,
      session: {
        connectionId: 7 as never,
        transport: 'ws',
        viaGateway: next() < 0.3,
        remoteAddr: '10.0.0.1:4000',
        tlsSubject: null,
      },
    });
  });
}

const matchers = [
  'service.name=svc-a',
  'service.name!=svc-a',
  'env=prod',
  'env!=prod',
  'host.name=host-3',
  'service.name=""',
  'service.name="a.b"',
  'service.name=~"svc-.*"',
  'service.name=~"svc-a|otelcol.*"',
  'service.name=~"(svc|otelcol)-?[a-z]*"',
  'service.name=~"a.b"',
  'service.name=~"a\\+b"',
  'service.name=~"line.break"',
  'service.name=~"(?s)line.break"',
  'service.name=~"(?i)SVC-A"',
  'service.name=~".*"',
  'service.name=~"é.*"',
  'service.name!~"svc.*"',
  'service.name!~"[a-z]+"',
  'env=~"prod.*"',
  'env!~"prod"',
  'missing=~".*"',
  'missing!~"x"',
  'healthy=true',
  'healthy=false',
  'connected=true',
  'connected=false',
  'via_gateway=true',
  'config_state=unmanaged',
  'config_state=pending',
];
const params = ['component=otlp', 'component=receivers/otlp'];

function filterOf(query: URLSearchParams): FleetFilter {
  const parsed = parseFleetQuery(query);
  if (!parsed.ok) throw new Error(`${query.toString()}: ${parsed.error}`);
  return parsed.filter;
}

describe('fleet filters evaluated by PostgreSQL agree with the in-memory matcher', () => {
  let db: TestDatabase;
  let store: StoreFixture;
  let lists: PgStoredLists;
  /** The same lists judging every regex outside the SQL subset row by row, never by distinct values. */
  let rowByRow: PgStoredLists;
  let stored: AgentState[];

  before(async () => {
    db = await createTestDatabase();
    store = await storeFixture(db);
    await store.writer.saveAgents(fleet(240, store.clock.now));
    lists = store.lists();
    rowByRow = createPgStoredLists({
      pool: store.pools.read,
      events$: NEVER,
      now: () => store.clock.now,
      logger: silentLogger(),
      disconnectAfterMs: 45_000,
      maxDistinctValues: 0,
    });
    stored = await store.listed();
  });
  after(async () => {
    lists.stop();
    rowByRow.stop();
    await store.close();
    await db.drop();
  });

  const listedBy = async (filter: FleetFilter, held: HeldIds = heldIds([]), by: PgStoredLists = lists) => {
    const out: string[] = [];
    await by.scan(filter, held, (a) => void out.push(a.uid));
    return out;
  };

  it('stores the generated fleet as it was written', () => {
    expect(stored).to.have.length(240);
  });

  it('gives the same set and count for every single term', async () => {
    for (const text of [...matchers.map((m) => `match=${encodeURIComponent(m)}`), ...params]) {
      const filter = filterOf(new URLSearchParams(text));
      const expected = stored.filter((a) => filter.matches(a)).map((a) => a.uid);
      for (const by of [lists, rowByRow]) {
        expect(await listedBy(filter, heldIds([]), by), text).to.deep.equal(expected);
        expect(await by.count(filter, heldIds([])), text).to.equal(expected.length);
      }
    }
  });

  it('gives the same set and count for random combinations, the registry’s agents left out', async () => {
    const next = random(11);
    for (let round = 0; round < 150; round++) {
      const query = new URLSearchParams();
      const terms = 1 + Math.floor(next() * 3);
      for (let t = 0; t < terms; t++) query.append('match', matchers[Math.floor(next() * matchers.length)]!);
      const filter = filterOf(query);
      const local = new Set(stored.filter(() => next() < 0.2).map((a) => a.uid));
      const expected = stored.filter((a) => !local.has(a.uid) && filter.matches(a)).map((a) => a.uid);
      const label = query.toString();
      const by = round % 2 === 0 ? lists : rowByRow;
      const held = heldIds([...local].sort());
      expect(await listedBy(filter, held, by), label).to.deep.equal(expected);
      expect(await by.count(filter, held), label).to.equal(expected.length);
    }
  });

  it('evaluates attribute, boolean and subset-regex terms exactly in SQL, the rest in the service', () => {
    const exact = (m: string) =>
      filterSql(filterOf(new URLSearchParams({ match: m })), { firstParam: 1, now: 0, disconnectAfterMs: 1 })
        .exact;
    for (const m of ['env=prod', 'env!=prod', 'healthy=true', 'connected=false', 'service.name=~"svc-.*"'])
      expect(exact(m), m).to.equal(true);
    for (const m of ['service.name=~"[a-z]+"', 'service.name=~"(?i)svc"', 'config_state=pending'])
      expect(exact(m), m).to.equal(false);
  });

  it('counts attribute terms from the agent row alone, and an unfiltered count from the live-id index', async () => {
    // An undescribed agent is stored with empty attribute documents, so the attribute conditions need
    // no session row; PostgreSQL then drops the session join from the count's plan. With neither
    // registry ids nor masked copies, the unfiltered count reads no column of the agent row.
    const client = await store.pools.read.connect();
    const plan = async (filter: FleetFilter) => {
      const sql = countSql(
        filterSql(filter, { firstParam: 1, now: 0, disconnectAfterMs: 1 }),
        { uids: [] },
        [],
        [],
      );
      const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${sql.text}`, [...sql.values]);
      return JSON.stringify(rows[0]);
    };
    try {
      for (const m of ['service.name=svc-a', 'service.name=~"svc-.*"', 'env!=prod']) {
        const text = await plan(filterOf(new URLSearchParams({ match: m })));
        expect(text, m).to.include('"Relation Name":"agents"');
        expect(text, m).not.to.include('agent_session');
      }
      // The planner's choice on 240 rows is a sequential scan; without one, the index answers alone.
      await client.query('SET enable_seqscan = off');
      expect(await plan(filterOf(new URLSearchParams()))).to.include('"Node Type":"Index Only Scan"');
    } finally {
      client.release(true);
    }
  });

  it('hands PostgreSQL only regexes that match exactly the values RE2 matches', async () => {
    const regexes = [
      'svc-.*',
      'a.b',
      'a\\.b',
      'a+b',
      'a\\+b',
      '(a|b)+c?',
      'x y',
      'é.',
      '.*\\|.*',
      'line.break',
      '(svc|)',
    ];
    const values = [...names, 'aab', 'abc', 'bbc', 'a|b', 'éé', 'svc-', 'a\nb', 'line\rbreak'];
    for (const source of regexes) {
      const pattern = regexToPostgres(source);
      if (pattern === undefined) continue;
      const re = RE2JS.compile(source);
      const rows = await store.query<{ v: string; m: boolean }>(
        'SELECT v, v ~ $2 AS m FROM unnest($1::text[]) v',
        [values, pattern],
      );
      for (const { v, m } of rows)
        expect(m, `${JSON.stringify(source)} on ${JSON.stringify(v)}`).to.equal(re.testExact(v));
    }
    expect(regexToPostgres('[a-z]+')).to.equal(undefined);
    expect(regexToPostgres('(?i)a')).to.equal(undefined);
    expect(regexToPostgres('a{2}')).to.equal(undefined);
    expect(regexToPostgres('a*?')).to.equal(undefined);
  });

  it('reads a page of a large stored fleet in one bounded chunk, and never more than a chunk at once', async () => {
    const rowsRead: number[] = [];
    const pool = store.pools.read;
    const counting = Object.create(pool) as typeof pool;
    counting.query = (async (config: never) => {
      const result = await (pool.query(config) as Promise<{ rows: unknown[] }>);
      rowsRead.push(result.rows.length);
      return result;
    }) as never;
    const counted = createPgStoredLists({
      pool: counting,
      events$: NEVER,
      now: () => store.clock.now,
      logger: silentLogger(),
      disconnectAfterMs: 45_000,
      maxDistinctValues: 1000,
    });
    try {
      const large = Array.from({ length: 3000 }, (_, i) => agent(10_000 + i));
      await store.writer.saveAgents(large);
      let taken = 0;
      await counted.scan(filterOf(new URLSearchParams()), heldIds([]), () => ++taken < 10, 10);
      expect(rowsRead).to.have.length(1);
      expect(rowsRead[0]).to.be.at.most(100);
      rowsRead.length = 0;
      const inexact = filterOf(new URLSearchParams({ match: 'service.name=~"[a-z]+-1[0-9]*5"' }));
      const n = await counted.count(inexact, heldIds([]));
      expect(n).to.equal([...stored, ...large].filter((a) => inexact.matches(a)).length);
      expect(n).to.equal(300);
      // The distinct values (over 1,000) are not judged: the rows are, in chunks.
      expect(rowsRead.length).to.be.greaterThan(2);
      expect(Math.max(...rowsRead)).to.be.at.most(2000);
      rowsRead.length = 0;
      const few = filterOf(new URLSearchParams({ match: 'env=~"[a-z]+"' }));
      expect(await counted.count(few, heldIds([]))).to.equal(
        [...stored, ...large].filter((a) => few.matches(a)).length,
      );
      // Three environments and agents without one: each value judged once, then one count.
      expect(rowsRead).to.have.length(2);
      expect(rowsRead[0]).to.be.at.most(4);
      expect(rowsRead[1]).to.equal(1);
    } finally {
      counted.stop();
      await store.query(`DELETE FROM agents WHERE instance_uid >= $1`, [uidOf(10_000)]);
    }
  });
});
