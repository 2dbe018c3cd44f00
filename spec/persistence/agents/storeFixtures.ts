// AgentState builders and store wiring shared by the persistence specs.

import type pg from 'pg';
import { NEVER, Subscription, type Observable, type SchedulerLike } from 'rxjs';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import type { ConnectionId, InstanceUid } from '../../../src/events/ids.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { createAgentWriter, type AgentWriter } from '../../../src/persistence/agents/agentWriter.ts';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations } from '../../../src/persistence/database/migrate.ts';
import { createMirrorSync, type MirrorSync } from '../../../src/persistence/agents/mirrorSync.ts';
import type { Notifications } from '../../../src/persistence/database/notifications.ts';
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

/** Notifications that never arrive: the mirror under test reads when the spec says so. */
export const noNotifications: Notifications = {
  on: () => () => undefined,
  onConnected: () => () => undefined,
  connected: false,
  start: () => Promise.resolve(),
  stop: () => Promise.resolve(),
};

/** A clock the spec sets by hand, as a scheduler whose timers never fire. */
export const handClock = (clock: { now: number }): SchedulerLike => ({
  now: () => clock.now,
  schedule: () => new Subscription(),
});

export interface MirrorOptions {
  readonly events$?: Observable<FleetEvent>;
  readonly notifications?: Notifications;
  readonly scheduler?: SchedulerLike;
  readonly intervalMs?: number;
  readonly reloadAfterMs?: number;
}

export interface StoreFixture {
  readonly pools: Pools;
  readonly writer: AgentWriter;
  /** Single reads (getAgent) of a replica that evicted nothing. */
  readonly reader: AgentStoreReader;
  /** Every live stored agent as a fresh mirror lists it at `clock.now`. */
  listed(): Promise<AgentState[]>;
  /** A list mirror on the read pool, not started; the spec calls catchUp() or start(). */
  mirror(options?: MirrorOptions): MirrorSync;
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
  const mirror = (options: MirrorOptions = {}) =>
    createMirrorSync({
      pool: pools.read,
      notifications: options.notifications ?? noNotifications,
      events$: options.events$ ?? NEVER,
      scheduler: options.scheduler ?? handClock(clock),
      logger: silentLogger(),
      disconnectAfterMs,
      reloadAfterMs: options.reloadAfterMs ?? 7 * 24 * 3600_000,
      ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    });
  const reader = createPgStoreReader(pools.read, {
    mirror: mirror(),
    now: () => clock.now,
    disconnectAfterMs,
  });
  async function listed(): Promise<AgentState[]> {
    const fresh = mirror();
    await fresh.catchUp();
    await fresh.stop();
    return listOf(fresh, clock.now);
  }
  return {
    pools,
    writer,
    reader,
    listed,
    mirror,
    writes,
    clock,
    query: async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) =>
      (await pools.read.query<R>(text, values)).rows,
    close: () => pools.end(),
  };
}

/** The agents a mirror lists at `now`; throws the reason when it cannot list. */
export function listOf(mirror: MirrorSync, now: number): AgentState[] {
  const list = mirror.list(now);
  if (!list.ok) throw list.error instanceof Error ? list.error : new Error(String(list.error));
  const out: AgentState[] = [];
  list.agents.forEachOrdered((agent) => void out.push(agent));
  return out;
}
