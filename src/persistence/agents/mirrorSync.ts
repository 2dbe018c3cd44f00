// Keeps the list mirror (storeMirror.ts) in step with the store, on the read pool. The first read
// loads every live stored agent; each later read loads only the agents written at or past the
// watermark of the read before (agentReadSql.ts explains why the watermark is safe when writers
// commit out of order). Reads run every `intervalMs` (1 s), and at once when a sibling's write
// transaction notifies `agentsFlushedChannel` or the notification connection comes back.
//
// Contract: never two reads at once; a read asked for during one runs right after it. A failed read
// changes nothing: the next one starts from the same watermark. While the last read failed, or none
// has succeeded for `maxLagMs`, list() says why instead of serving the mirror (lists then answer
// `partial`). The eviction mask (evictionMask.ts) follows the bus and the reads. stop() waits for the
// read in flight.

import type pg from 'pg';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { Logger } from '../../io/logger.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { Notifications } from '../database/notifications.ts';
import type { Sql } from '../database/sql.ts';
import { mirrorEntryFromRow } from './agentFromRow.ts';
import { changedAgentsSql, listAgentsSql, watermarkSql } from './agentReadSql.ts';
import { agentsFlushedChannel } from './agentWriteSql.ts';
import { createEvictionMask, type EvictionMask } from './evictionMask.ts';
import { createStoreMirror, type StoreMirror } from './storeMirror.ts';
import type { StoredList } from './storeReader.ts';

export interface MirrorSyncDeps {
  readonly pool: pg.Pool;
  readonly notifications: Notifications;
  /** The bus: evictions, returns and soft deletes feed the eviction mask. */
  readonly events$: Observable<FleetEvent>;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly disconnectAfterMs: number;
  readonly intervalMs?: number;
  /** Lists stop using a mirror whose last successful read started longer ago than this. */
  readonly maxLagMs?: number;
  /**
   * A mirror that could not read for longer than this reads everything again: the purge deletes
   * soft-deleted rows after the retention, and a row deleted before the mirror saw its soft delete
   * would otherwise stay. Set it to fleet.soft_delete_duration.
   */
  readonly reloadAfterMs: number;
}

export interface MirrorSync {
  /** The mirrored agents for one list at `now`, or the reason the mirror cannot serve one. */
  list(now: number): StoredList;
  /** True when `stored` is the copy of an agent this replica evicted (the single read hides it too). */
  hides(stored: AgentState): boolean;
  /** Reads now, or right after the read in flight; resolves when that read is over. */
  catchUp(): Promise<void>;
  /** The first read (a failure is logged and retried on the timer), then the timer. Never rejects. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Rows mapped per turn of the event loop, so a large read never holds up requests for long. */
const slice = 500;
const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve));

export function createMirrorSync(deps: MirrorSyncDeps): MirrorSync {
  const { pool, scheduler, logger, disconnectAfterMs } = deps;
  const intervalMs = deps.intervalMs ?? 1000;
  const maxLagMs = deps.maxLagMs ?? 10_000;
  const mask: EvictionMask = createEvictionMask();
  let mirror: StoreMirror = createStoreMirror();
  /** Where the next read starts; undefined until a first read succeeded. */
  let watermark: string | undefined;
  let caughtUpAt = -Infinity;
  let failure: unknown;
  let readsStarted = 0;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let timer: Subscription | undefined;
  let stopped = false;

  const query = async (sql: Sql) =>
    (await pool.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' })).rows;

  async function read(): Promise<void> {
    const read = ++readsStarted;
    const startedAt = scheduler.now();
    const from = startedAt - caughtUpAt > deps.reloadAfterMs ? undefined : watermark;
    const [[next]] = (await query(watermarkSql())) as [[string]];
    const rows = await query(from === undefined ? listAgentsSql() : changedAgentsSql(from));
    const target = from === undefined ? createStoreMirror() : mirror;
    for (let i = 0; i < rows.length; i++) {
      if (i > 0 && i % slice === 0) await yieldToLoop();
      target.apply(mirrorEntryFromRow(rows[i]!, disconnectAfterMs));
    }
    if (from === undefined) {
      mirror = target;
      logger.info({ agents: target.size, ms: scheduler.now() - startedAt }, 'store mirror loaded');
    }
    watermark = next;
    caughtUpAt = startedAt;
    if (failure !== undefined) logger.info('store mirror caught up again; fleet lists merge the store');
    failure = undefined;
    mask.readCompleted(read);
  }

  function failed(error: unknown): void {
    if (failure === undefined)
      logger.warn({ err: error }, 'store mirror cannot catch up; fleet lists serve the registry alone');
    failure = error;
  }

  function catchUp(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (running === undefined) {
      running = read()
        .catch(failed)
        .finally(() => {
          running = undefined;
        });
      return running;
    }
    queued ??= running.then(() => {
      queued = undefined;
      return catchUp();
    });
    return queued;
  }

  function follow(event: FleetEvent): void {
    try {
      if (event.type === 'AgentEvicted') mask.evicted(event.data.uid, event.data.lastSeen);
      else if (event.type === 'AgentConnected') mask.returned(event.data.uid);
      else if (event.type === 'AgentsSoftDeleted') mask.softDeleted(event.data.uids, readsStarted);
    } catch (error) {
      logger.error({ err: error }, 'eviction mask failed');
    }
  }

  const subscription = deps.events$.subscribe(follow);
  const unlisten = [
    deps.notifications.on(agentsFlushedChannel, () => void catchUp()),
    deps.notifications.onConnected(() => void catchUp()),
  ];

  return {
    list(now) {
      if (failure !== undefined) return { ok: false, error: failure };
      if (watermark === undefined) return { ok: false, error: new Error('store mirror not loaded yet') };
      if (now - caughtUpAt > maxLagMs)
        return { ok: false, error: new Error(`store mirror ${now - caughtUpAt} ms behind`) };
      const current = mirror;
      return {
        ok: true,
        agents: {
          get size() {
            return current.size - mask.countHidden((uid) => current.get(uid));
          },
          has(uid) {
            const agent = current.get(uid);
            return agent !== undefined && !mask.hides(agent);
          },
          // The walk is synchronous: the mask cannot change during it.
          forEachOrdered: (visit) =>
            current.forEachOrdered(
              now,
              mask.size === 0 ? visit : (agent) => (mask.hides(agent) ? true : visit(agent)),
            ),
        },
      };
    },
    hides: (stored) => mask.hides(stored),
    catchUp,
    async start() {
      await catchUp();
      if (stopped) return;
      timer = scheduler.schedule(function tick() {
        void catchUp();
        this.schedule(undefined, intervalMs);
      }, intervalMs);
    },
    async stop() {
      stopped = true;
      timer?.unsubscribe();
      subscription.unsubscribe();
      for (const off of unlisten) off();
      while (running !== undefined) await running;
    },
  };
}
