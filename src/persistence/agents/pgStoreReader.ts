// AgentStoreReader on PostgreSQL (SPEC durability rules 3-6, 10). Fleet lists read the list mirror,
// kept in step with the store by mirrorSync.ts, so a list never waits for the database; a single
// read that missed the registry asks the store once (rule 3) on the read pool. Both leave out the
// stored copy of an agent this replica has evicted, until its soft delete has reached the mirror.

import type pg from 'pg';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { agentFromDetailRow } from './agentFromRow.ts';
import { getAgentSql } from './agentReadSql.ts';
import type { MirrorSync } from './mirrorSync.ts';
import type { AgentStoreReader } from './storeReader.ts';

export interface StoreReaderOptions {
  readonly mirror: MirrorSync;
  readonly now: () => number;
  readonly disconnectAfterMs: number;
}

export function createPgStoreReader(pool: pg.Pool, options: StoreReaderOptions): AgentStoreReader {
  const { mirror, now, disconnectAfterMs } = options;
  return {
    listAgents: () => mirror.list(now()),
    async getAgent(uid: InstanceUid): Promise<AgentState | undefined> {
      const sql = getAgentSql(uid);
      const result = await pool.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' });
      const row = result.rows[0];
      if (row === undefined) return undefined;
      const agent = agentFromDetailRow(row, { now: now(), disconnectAfterMs });
      return mirror.hides(agent) ? undefined : agent;
    },
  };
}
