// AgentStoreReader on PostgreSQL (SPEC durability rules 3-6, 10). Fleet lists are answered by the
// database at request time (pgStoredLists.ts); a single read that missed the registry asks the
// store once (rule 3). Both run on the read pool and leave out the stored copy of an agent this
// replica has evicted, until a read that started after its soft delete was written has completed.

import type pg from 'pg';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { agentFromDetailRow } from './agentFromRow.ts';
import { getAgentSql } from './agentReadSql.ts';
import type { PgStoredLists } from './pgStoredLists.ts';
import type { AgentStoreReader } from './storeReader.ts';

export interface StoreReaderOptions {
  readonly lists: PgStoredLists;
  readonly now: () => number;
  readonly disconnectAfterMs: number;
}

export function createPgStoreReader(pool: pg.Pool, options: StoreReaderOptions): AgentStoreReader {
  const { lists, now, disconnectAfterMs } = options;
  return {
    lists,
    getAgent: (uid: InstanceUid) =>
      lists.reading(async (): Promise<AgentState | undefined> => {
        const sql = getAgentSql(uid);
        const result = await pool.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' });
        const row = result.rows[0];
        if (row === undefined) return undefined;
        const agent = agentFromDetailRow(row, { now: now(), disconnectAfterMs });
        return lists.hides(agent) ? undefined : agent;
      }),
  };
}
