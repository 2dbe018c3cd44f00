// AgentStoreReader on PostgreSQL (SPEC durability rules 3-6, 10), on the read pool.
//
// listAgents is shared for a short time (`listCacheMs`, 1 s by default): concurrent and
// back-to-back fleet lists reuse one store read instead of each loading the whole table. Stored
// data is already a flush behind (rule 6), so one more second does not change what a reader may
// see; `connected` is still computed against the time of the read. A failed read is never cached.

import type pg from 'pg';
import type { InstanceUid } from '../events/ids.ts';
import type { AgentState } from '../projections/registry/agentState.ts';
import { agentFromDetailRow, agentFromListRow } from './agentFromRow.ts';
import { getAgentSql, listAgentsSql } from './readSql.ts';
import type { AgentStoreReader } from './storeReader.ts';

export interface StoreReaderOptions {
  readonly now: () => number;
  readonly disconnectAfterMs: number;
  readonly listCacheMs?: number;
}

export function createPgStoreReader(pool: pg.Pool, options: StoreReaderOptions): AgentStoreReader {
  const cacheMs = options.listCacheMs ?? 1000;
  let cached: { at: number; agents: Promise<AgentState[]> } | undefined;

  async function load(): Promise<AgentState[]> {
    const sql = listAgentsSql();
    const result = await pool.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' });
    const freshness = { now: options.now(), disconnectAfterMs: options.disconnectAfterMs };
    return result.rows.map((row) => agentFromListRow(row, freshness));
  }

  return {
    listAgents(): Promise<AgentState[]> {
      const now = options.now();
      if (cached !== undefined && now >= cached.at && now - cached.at < cacheMs) return cached.agents;
      const entry = { at: now, agents: load() };
      cached = entry;
      entry.agents.catch(() => {
        if (cached === entry) cached = undefined;
      });
      return entry.agents;
    },
    async getAgent(uid: InstanceUid): Promise<AgentState | undefined> {
      const sql = getAgentSql(uid);
      const result = await pool.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' });
      const row = result.rows[0];
      return row === undefined ? undefined : agentFromDetailRow(row, { now: options.now(), disconnectAfterMs: options.disconnectAfterMs });
    },
  };
}
