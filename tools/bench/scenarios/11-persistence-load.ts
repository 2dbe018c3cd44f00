// Persistence: what one replica asks of PostgreSQL per agent, at rest and under churn (docs/scaling.md).
// A service with persistence on holds a simulated WebSocket fleet heartbeating every 30 s. After the
// fleet is connected and its first flush is written, PostgreSQL's own statistics (pg_stat_database,
// pg_stat_user_tables) are read before and after a measured window, and the differences are divided
// by agents and minutes: rows inserted, updated and deleted per table, transactions committed, rows
// read. At rest every agent only heartbeats; under churn 10 % of heartbeats flip an agent's health
// and 1 % of the fleet per minute disconnects, restarts or is replaced.

import type pg from 'pg';
import type { ResultRow, Scenario } from '../scenario.ts';
import { median, round, sleep, waitFor } from '../support/numbers.ts';
import { cpuSeconds } from '../support/procStats.ts';
import { benchDatabaseLabel, openBenchDatabase } from '../persistence/benchDatabase.ts';
import { createFleet } from '../../simulate/fleet.ts';

interface PgCounters {
  readonly commits: number;
  readonly fetched: number;
  readonly returned: number;
  /** Per table: inserted, updated, deleted rows. */
  readonly tables: Record<string, { ins: number; upd: number; del: number }>;
}

async function counters(client: pg.Pool): Promise<PgCounters> {
  // Statistics are sent to the shared counters when a backend's transaction ends; ask for a fresh
  // snapshot so the figures are those of now.
  await client.query('SELECT pg_stat_clear_snapshot()');
  const db = await client.query<{ commits: string; fetched: string; returned: string }>(
    `SELECT xact_commit AS commits, tup_fetched AS fetched, tup_returned AS returned
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  const tables = await client.query<{ relname: string; ins: string; upd: string; del: string }>(
    `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del FROM pg_stat_user_tables`,
  );
  const row = db.rows[0]!;
  return {
    commits: Number(row.commits),
    fetched: Number(row.fetched),
    returned: Number(row.returned),
    tables: Object.fromEntries(
      tables.rows.map((t) => [t.relname, { ins: Number(t.ins), upd: Number(t.upd), del: Number(t.del) }]),
    ),
  };
}

interface Window {
  readonly writesPerAgentMinute: Record<string, number>;
  readonly rowWritesPerAgentMinute: number;
  readonly commitsPerMinute: number;
  readonly rowsReadPerAgentMinute: number;
  readonly serverCpuPerMinute: number;
}

function perAgentMinute(before: PgCounters, after: PgCounters, agents: number, minutes: number): Window {
  const writes: Record<string, number> = {};
  let total = 0;
  for (const [table, now] of Object.entries(after.tables)) {
    const was = before.tables[table] ?? { ins: 0, upd: 0, del: 0 };
    const rows = now.ins - was.ins + (now.upd - was.upd) + (now.del - was.del);
    if (rows === 0) continue;
    writes[table] = rows / agents / minutes;
    total += rows;
  }
  return {
    writesPerAgentMinute: writes,
    rowWritesPerAgentMinute: total / agents / minutes,
    commitsPerMinute: (after.commits - before.commits) / minutes,
    rowsReadPerAgentMinute: (after.fetched - before.fetched) / agents / minutes,
    serverCpuPerMinute: 0,
  };
}

async function measure(
  ctx: Parameters<Scenario['run']>[0],
  agents: number,
  churn: boolean,
  windowMs: number,
): Promise<Window> {
  const bench = await openBenchDatabase();
  try {
    const server = await ctx.startService({
      database: bench.db.config,
      fleet: { heartbeat_interval: '30s' },
    });
    try {
      const fleet = createFleet({
        url: server.opampUrl,
        agents,
        transport: 'ws',
        gateways: 0,
        heartbeatMs: 30_000,
        flapRate: churn ? 0.1 : 0,
        configBytes: 1024,
        attributes: 10,
        churnPerSecond: churn ? agents / 100 / 60 : 0,
        rampPerSecond: 2000,
        localAddresses: ctx.localAddresses,
      });
      await fleet.start();
      await waitFor(() => fleet.snapshot().connected >= agents, 120_000, 200);
      // Past the first flush of every agent and one keepalive interval of session rows.
      await sleep(ctx.quick ? 2000 : 40_000);
      const before = await counters(bench.pools.write);
      const cpu0 = cpuSeconds(server.pid);
      await sleep(windowMs);
      const after = await counters(bench.pools.write);
      const minutes = windowMs / 60_000;
      const window = perAgentMinute(before, after, agents, minutes);
      ctx.log(`  ${churn ? 'churning' : 'at rest'}: ${JSON.stringify(window.writesPerAgentMinute)}`);
      await fleet.stop();
      return { ...window, serverCpuPerMinute: (cpuSeconds(server.pid) - cpu0) / minutes };
    } finally {
      await server.stop();
    }
  } finally {
    await bench.close();
  }
}

const tableColumns = ['agents', 'agent_session', 'agent_effective_config'];

function rowOf(label: string, agents: number, windows: readonly Window[]): ResultRow {
  const pick = (f: (w: Window) => number, digits = 3) => round(median(windows.map(f)), digits);
  const row: Record<string, string | number> = { fleet: label, agents };
  for (const table of tableColumns)
    row[`${table} rows written / agent / min`] = pick((w) => w.writesPerAgentMinute[table] ?? 0);
  const ours = (w: Window) => tableColumns.reduce((n, t) => n + (w.writesPerAgentMinute[t] ?? 0), 0);
  row['other tables (job queue) rows written / agent / min'] = pick(
    (w) => w.rowWritesPerAgentMinute - ours(w),
  );
  row['rows read / agent / min'] = pick((w) => w.rowsReadPerAgentMinute, 2);
  row['commits / min'] = pick((w) => w.commitsPerMinute, 0);
  row['server CPU s / min'] = pick((w) => w.serverCpuPerMinute, 2);
  return row;
}

const scenario: Scenario = {
  order: 11,
  name: 'persistence-load',
  title: 'Persistence: PostgreSQL writes and reads per agent, at rest and under churn',
  async run(ctx) {
    const agents = ctx.quick ? 300 : 10_000;
    const windowMs = ctx.quick ? 4000 : 60_000;
    // One run per mode: the figures are PostgreSQL's row counts, which the machine's other load
    // hardly moves, and each run takes minutes.
    const rest = [await measure(ctx, agents, false, windowMs)];
    const churn = [await measure(ctx, agents, true, windowMs)];
    return {
      rows: [rowOf('at rest', agents, rest), rowOf('churning', agents, churn)],
      conditions: [
        `${agents} simulator agents over WebSocket, one socket each, heartbeats every 30 s (the default fleet.heartbeat_interval: disconnect after 45 s, session keepalive every 30 s)`,
        'at rest: heartbeats only; churning: 10 % of heartbeats flip the agent’s health, and 1 % of the fleet per minute disconnects, restarts (full state) or is replaced by a new instance',
        `measured from PostgreSQL's statistics (pg_stat_user_tables, pg_stat_database) over a ${windowMs / 1000} s window that starts after every agent is connected and flushed and one keepalive interval has passed; one replica, persistence on, ${benchDatabaseLabel()}, on the same two cores`,
        'rows read counts tup_fetched (rows fetched by index scans: the session refresh and the list mirror)',
        'each figure is measured once (PostgreSQL’s row counts vary little between runs; server CPU is affected by the machine’s other load)',
      ],
    };
  },
};

export default scenario;
