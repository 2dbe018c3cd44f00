// AgentState builders and store wiring shared by the persistence specs.

import type pg from 'pg';
import { NEVER, type Observable } from 'rxjs';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import type { ConnectionId, InstanceUid } from '../../../src/events/ids.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { heldIds } from '../../../src/persistence/agents/storeReader.ts';
import { matchAll } from '../../../src/projections/filter/fleetFilter.ts';
import { createAgentWriter, type AgentWriter } from '../../../src/persistence/agents/agentWriter.ts';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations } from '../../../src/persistence/database/migrate.ts';
import { createPgStoredLists, type PgStoredLists } from '../../../src/persistence/agents/pgStoredLists.ts';
import { createPgStoreReader } from '../../../src/persistence/agents/pgStoreReader.ts';
import { createPools, type Pools } from '../../../src/persistence/database/pools.ts';
import type { AgentStoreReader } from '../../../src/persistence/agents/storeReader.ts';
import type { WriteOp } from '../../../src/persistence/database/writeOp.ts';
import { agent as baseAgent } from '../../support/agentFixture.ts';
import type { TestDatabase } from '../../support/postgres.ts';

export const uidOf = (n: number): InstanceUid =>
  `018f0000-0000-7000-8000-${String(n).padStart(12, '0')}` as InstanceUid;

export function agent(n: number, over: Partial<AgentState> = {}): AgentState {
  return baseAgent({
    uid: uidOf(n),
    identifying: { 'service.name': `svc-${n}` },
    nonIdentifying: { 'host.name': `host-${n}` },
    over: {
      firstSeen: 1_700_000_000_000,
      lastSeen: 1_700_000_001_000,
      sequenceNum: 3n,
      capabilities: 0x1fn,
      session: {
        connectionId: 7 as ConnectionId,
        transport: 'ws',
        viaGateway: false,
        remoteAddr: '10.0.0.1:4000',
        tlsSubject: null,
      },
      connectionChangedAt: 1_700_000_000_000,
      ...over,
    },
  });
}

export interface ListsOptions {
  readonly events$?: Observable<FleetEvent>;
}

export interface StoreFixture {
  readonly pools: Pools;
  readonly writer: AgentWriter;
  /** Single reads (getAgent) of a replica that evicted nothing. */
  readonly reader: AgentStoreReader;
  /** Every live stored agent as a list of a replica that evicted nothing shows it at `clock.now`. */
  listed(): Promise<AgentState[]>;
  /** Database-backed fleet lists on the read pool, at `clock.now`; the spec stops them. */
  lists(options?: ListsOptions): PgStoredLists;
  readonly writes: { op: WriteOp; ok: boolean }[];
  readonly clock: { now: number };
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

/** Migrated database with a writer and an uncached reader whose clock the spec sets. */
export async function storeFixture(db: TestDatabase, disconnectAfterMs = 45_000): Promise<StoreFixture> {
  const settings = connectionSettings({ ...db.config, pool_max: 4 });
  await applyServiceMigrations(settings);
  const pools = createPools(settings, { poolMax: 4, readTimeoutMs: 5000, logger: silentLogger() });
  const writes: { op: WriteOp; ok: boolean }[] = [];
  const writer = createAgentWriter(pools.write, {
    policy: { timeoutMs: 5000, retries: 1, backoffMs: 10 },
    observe: (op, _s, ok) => writes.push({ op, ok }),
    chunkSize: 3,
  });
  const clock = { now: 1_700_000_002_000 };
  const lists = (options: ListsOptions = {}) =>
    createPgStoredLists({
      pool: pools.read,
      events$: options.events$ ?? NEVER,
      now: () => clock.now,
      logger: silentLogger(),
      disconnectAfterMs,
    });
  const reader = createPgStoreReader(pools.read, {
    lists: lists(),
    now: () => clock.now,
    disconnectAfterMs,
  });
  async function listed(): Promise<AgentState[]> {
    const fresh = lists();
    const out: AgentState[] = [];
    await fresh.scan(matchAll, heldIds([]), (agent) => void out.push(agent));
    fresh.stop();
    return out;
  }
  return {
    pools,
    writer,
    reader,
    listed,
    lists,
    writes,
    clock,
    query: async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) =>
      (await pools.read.query<R>(text, values)).rows,
    close: () => pools.end(),
  };
}
