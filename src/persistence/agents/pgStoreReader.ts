// AgentStoreReader on PostgreSQL (SPEC durability rules 3-6, 10), on the read pool.
//
// Fleet lists share one store read (a snapshot), refreshed in the background: a list served from a
// snapshot younger than `listFreshMs` (1 s) reads nothing; one between that and `listMaxStaleMs`
// (10 s: two flush windows, so a page polling every 5 s never waits) is answered from the snapshot
// at once while a refresh starts; an older snapshot, or none, is waited for. Stored data is already
// up to a flush behind (rule 6); the snapshot keeps a 100,000-row read (about a second of database
// and parsing work) out of the requests' path. A failed read drops the snapshot and rejects, so the
// next lists answer `partial` until the store answers again. `connected` is computed against the
// time of the read (rule 10).

import type pg from 'pg';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { agentFromDetailRow, agentFromListRow, type Freshness } from './agentFromRow.ts';
import { getAgentSql, listAgentsSql } from './agentReadSql.ts';
import type { AgentStoreReader } from './storeReader.ts';

export interface StoreReaderOptions {
  readonly now: () => number;
  readonly disconnectAfterMs: number;
  /** 0 makes every list read the store. */
  readonly listFreshMs?: number;
  readonly listMaxStaleMs?: number;
}

/** Rows mapped per turn of the event loop, so a large read never holds up requests for long. */
const mapSlice = 5000;
const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve));

async function mapRows(rows: unknown[][], freshness: Freshness): Promise<AgentState[]> {
  const agents = new Array<AgentState>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % mapSlice === 0) await yieldToLoop();
    agents[i] = agentFromListRow(rows[i]!, freshness);
  }
  return agents;
}

export function createPgStoreReader(pool: pg.Pool, options: StoreReaderOptions): AgentStoreReader {
  const freshMs = options.listFreshMs ?? 1000;
  const maxStaleMs = Math.max(freshMs, options.listMaxStaleMs ?? 10_000);
  let snapshot: { at: number; agents: AgentState[] } | undefined;
  let reading: Promise<AgentState[]> | undefined;

  async function read(): Promise<AgentState[]> {
    const at = options.now();
    const sql = listAgentsSql();
    const result = await pool.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' });
    const agents = await mapRows(result.rows, { now: at, disconnectAfterMs: options.disconnectAfterMs });
    snapshot = { at, agents };
    return agents;
  }

  function refresh(): Promise<AgentState[]> {
    reading ??= read()
      .catch((error: unknown) => {
        snapshot = undefined;
        throw error;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  }

  return {
    listAgents(): Promise<AgentState[]> {
      const age = snapshot === undefined ? Infinity : options.now() - snapshot.at;
      if (snapshot === undefined || age < 0 || age > maxStaleMs || freshMs === 0) return refresh();
      if (age >= freshMs) refresh().catch(() => undefined);
      return Promise.resolve(snapshot.agents);
    },
    async getAgent(uid: InstanceUid): Promise<AgentState | undefined> {
      const sql = getAgentSql(uid);
      const result = await pool.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' });
      const row = result.rows[0];
      return row === undefined
        ? undefined
        : agentFromDetailRow(row, { now: options.now(), disconnectAfterMs: options.disconnectAfterMs });
    },
  };
}
