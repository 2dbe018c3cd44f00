// The write side of the agent store: guarded saves, soft deletes, session refreshes, purge. Each
// batch is split into chunks; each chunk is one transaction of a few UNNEST statements (never one
// round trip per agent), bounded by the write timeout and retried (writeOp.ts). Siblings need no
// notice: their fleet lists read the tables at request time (pgStoredLists.ts).

import type pg from 'pg';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { Eviction } from '../../projections/changeTracker/changeTracker.ts';
import type { Sql } from '../database/sql.ts';
import { agentColumns, configColumns, sessionColumns } from './agentColumns.ts';
import type { AliveTimes } from './sessionLedger.ts';
import { runWrite, type ObserveWrite, type WritePolicy } from '../database/writeOp.ts';
import {
  deleteStaleConfigsSql,
  purgeSql,
  softDeleteSql,
  upsertAgentsSql,
  upsertConfigsSql,
  upsertSessionsSql,
} from './agentWriteSql.ts';

export interface BatchResult {
  /** Agents whose write went through (including those the guard declined: nothing is left to do). */
  readonly done: readonly string[];
  /** Agents whose chunk failed after its retries: still to be written. */
  readonly failed: readonly string[];
  /** Agents whose row changed. */
  readonly applied: ReadonlySet<string>;
  /** The first error of a failed chunk, for the log. */
  readonly error?: unknown;
}

export interface AgentWriter {
  saveAgents(agents: readonly AgentState[], alive?: AliveTimes): Promise<BatchResult>;
  softDeleteAgents(evictions: readonly Eviction[]): Promise<BatchResult>;
  saveSessions(agents: readonly AgentState[], alive?: AliveTimes): Promise<BatchResult>;
  /** Deletes soft-deleted rows older than the retention; resolves to the number of rows deleted. */
  purge(nowMs: number, retentionMs: number): Promise<number>;
}

export interface AgentWriterOptions {
  readonly policy: WritePolicy;
  readonly observe: ObserveWrite;
  /** Agents per transaction. */
  readonly chunkSize?: number;
  /**
   * Chunks written at once, each in its own transaction on its own connection. Chunks of one batch
   * hold disjoint agents, so they never wait on each other's row locks.
   */
  readonly concurrency?: number;
  /** This replica's name in agents.held_by (heldRows.ts); unset for writers that hold no agents. */
  readonly heldBy?: string;
}

const uidsOf = (rows: readonly { instance_uid: string }[]) => rows.map((r) => r.instance_uid);

/** Runs a statement returning changed uids. */
async function changedRows(client: pg.PoolClient, sql: Sql): Promise<Set<string>> {
  return new Set(uidsOf((await client.query<{ instance_uid: string }>(sql)).rows));
}

/** Whether the items are in ascending uid order already (the session pass gives them so). */
function inUidOrder(items: readonly { uid: string }[]): boolean {
  for (let i = 1; i < items.length; i++) if (items[i - 1]!.uid > items[i]!.uid) return false;
  return true;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

async function saveChunk(
  client: pg.PoolClient,
  agents: readonly AgentState[],
  alive: AliveTimes | undefined,
  heldBy: string | null,
): Promise<Set<string>> {
  const applied = await changedRows(client, upsertAgentsSql(agentColumns(agents), heldBy));
  // SPEC durability rule 12: where the guarded upsert changed no row, nothing else is written.
  if (applied.size === 0) return applied;
  const changed = applied.size === agents.length ? agents : agents.filter((a) => applied.has(a.uid));
  await client.query(upsertSessionsSql(sessionColumns(changed, alive), { agentsKnownToExist: true }));
  const configs = configColumns(changed);
  await client.query(deleteStaleConfigsSql([...applied], configs));
  if (configs.uid.length > 0) await client.query(upsertConfigsSql(configs));
  return applied;
}

export function createAgentWriter(pool: pg.Pool, options: AgentWriterOptions): AgentWriter {
  const size = options.chunkSize ?? 2000;
  const concurrency = options.concurrency ?? 1;
  const { policy, observe } = options;
  const heldBy = options.heldBy ?? null;

  async function batched<T extends { uid: string }>(
    items: readonly T[],
    write: (chunk: T[]) => Promise<Set<string>>,
  ): Promise<BatchResult> {
    // A stable order keeps row locks in one order across replicas writing overlapping batches.
    const sorted = inUidOrder(items)
      ? items
      : [...items].sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    const done: string[] = [];
    const failed: string[] = [];
    const applied = new Set<string>();
    let error: unknown;
    const queue = chunks(sorted, size);
    const worker = async () => {
      for (let chunk = queue.shift(); chunk !== undefined; chunk = queue.shift()) {
        try {
          for (const uid of await write(chunk)) applied.add(uid);
          for (const item of chunk) done.push(item.uid);
        } catch (e) {
          error ??= e;
          for (const item of chunk) failed.push(item.uid);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, queue.length)) }, worker));
    return failed.length === 0 ? { done, failed, applied } : { done, failed, applied, error };
  }

  return {
    saveAgents: (agents, alive) =>
      batched(agents, (chunk) =>
        runWrite(pool, 'save_agent', policy, observe, (c) => saveChunk(c, chunk, alive, heldBy)),
      ),
    softDeleteAgents: (evictions) =>
      batched(evictions, (chunk) =>
        runWrite(pool, 'soft_delete_agent', policy, observe, (c) => changedRows(c, softDeleteSql(chunk))),
      ),
    saveSessions: (agents, alive) =>
      batched(agents, (chunk) =>
        runWrite(pool, 'save_session', policy, observe, (c) =>
          changedRows(c, upsertSessionsSql(sessionColumns(chunk, alive))),
        ),
      ),
    purge: async (nowMs, retentionMs) => (await pool.query(purgeSql(nowMs, retentionMs))).rowCount ?? 0,
  };
}

/**
 * Chunks in flight: `configured` (database.write_concurrency), but never every connection of a write
 * pool of `writeConnections`: one is kept for sessions, purge and jobs. More chunks at once than the
 * database has cores to run them on only take CPU from the service (docs/persistence.md "Connections").
 */
export const writeConcurrency = (writeConnections: number, configured: number): number =>
  Math.max(1, Math.min(configured, writeConnections - 1));
