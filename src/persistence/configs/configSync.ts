// Keeps this replica's configs in force equal to the database's (docs/remote-config.md): reads what
// is in force at start, then again whenever a write anywhere notifies svc_configs, after the
// notification connection comes back (a notification may have been lost), and every `reconcileMs`
// as a last resort. Each read compares the current revision of every live config with what this
// replica has put in force and fetches only the revisions that changed, so a reconcile costs one
// small query. Changes are published as RemoteConfigChanged / RemoteConfigRemoved. Guarded: never
// two reads at once; a request during a read runs one more right after. The reconcile timer runs on
// the injected scheduler (virtual time in specs).

import type pg from 'pg';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { Logger } from '../../io/logger.ts';
import type { Notifications } from '../database/notifications.ts';
import { configsChannel, inForceSql, revisionsByKeySql } from './configSql.ts';
import { revisionFromRow } from './configRows.ts';

export interface ConfigSyncDeps {
  readonly pool: pg.Pool;
  readonly notifications: Notifications;
  readonly publish: (event: FleetEvent) => void;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  /** Default 10 s. */
  readonly reconcileMs?: number;
}

export interface ConfigSync {
  /** First read; rejects when the database cannot be read (startup). */
  start(): Promise<void>;
  /** Reads now and resolves when this replica is up to date (after an API write, before answering). */
  refresh(): Promise<void>;
  /** When the latest read started (scheduler time), or undefined before the first. */
  lastReadAt(): number | undefined;
  stop(): Promise<void>;
}

export function createConfigSync(deps: ConfigSyncDeps): ConfigSync {
  const { pool, logger, scheduler } = deps;
  const now = () => scheduler.now();
  /** name → the revision this replica has put in force. */
  const inForce = new Map<string, number>();
  let running: Promise<void> | undefined;
  let again = false;
  let timer: Subscription | undefined;
  let lastReadAt: number | undefined;
  const unsubscribe: (() => void)[] = [];

  async function readOnce(): Promise<void> {
    lastReadAt = now();
    const rows = (await pool.query<[string, number]>({ ...inForceSql(), rowMode: 'array' })).rows;
    const wanted = new Map(rows.map(([name, revision]) => [name, revision]));
    const changed = [...wanted].filter(([name, revision]) => inForce.get(name) !== revision);
    if (changed.length > 0) {
      const sql = revisionsByKeySql(changed.map(([name, revision]) => ({ name, revision })));
      const fetched = (await pool.query<unknown[]>({ ...sql, rowMode: 'array' })).rows.map((r) =>
        revisionFromRow(r),
      );
      for (const { author: _a, createdAt: _c, draft: _d, restoredFrom: _r, ...config } of fetched) {
        inForce.set(config.name, config.revision);
        deps.publish({ type: 'RemoteConfigChanged', at: now(), data: { config } });
      }
    }
    for (const name of [...inForce.keys()]) {
      if (wanted.has(name)) continue;
      inForce.delete(name);
      deps.publish({ type: 'RemoteConfigRemoved', at: now(), data: { name } });
    }
  }

  function refresh(): Promise<void> {
    if (running !== undefined) {
      again = true;
      return running.then(() => running ?? undefined);
    }
    running = readOnce().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        void refresh().catch((error: unknown) => logger.warn({ err: error }, 'remote config reload failed'));
      }
    });
    return running;
  }

  const background = () =>
    void refresh().catch((error: unknown) =>
      logger.warn({ err: error }, 'remote config reload failed; retried'),
    );

  return {
    async start() {
      await refresh();
      unsubscribe.push(deps.notifications.on(configsChannel, background));
      unsubscribe.push(deps.notifications.onConnected(background));
      const reconcileMs = deps.reconcileMs ?? 10_000;
      timer = scheduler.schedule(function reconcile() {
        background();
        this.schedule(undefined, reconcileMs);
      }, reconcileMs);
    },
    refresh,
    lastReadAt: () => lastReadAt,
    async stop() {
      timer?.unsubscribe();
      for (const off of unsubscribe) off();
      while (running !== undefined) await running.catch(() => undefined);
    },
  };
}
