// Persistence on PostgreSQL (SPEC durability rules 1-22), assembled. createApp builds it only when
// database.host is set (rule 1): with the host empty nothing here is created, no connection is
// attempted and no persistence metric is registered.
//
// Lifecycle: created with the app (the flusher subscribes to the change tracker, and the list
// mirror to the bus, before any event flows); start() migrates under the advisory lock, starts the
// job queue and the purge job, listens for notifications, loads the list mirror, and starts the
// session-refresh pass and the job-queue UI; stop() is called after the bus completed, so the
// change tracker's final window is already marked: it waits for the flush in flight, flushes once
// more, then stops the mirror and the notifications and closes the job queue and the pools.

import type { Middleware } from 'koa';
import type { Observable, SchedulerLike } from 'rxjs';
import type { FleetEvent } from '../events/fleetEvent.ts';
import type { Config } from '../io/config/schema.ts';
import type { Logger } from '../io/logger.ts';
import type { ChangeWindow } from '../projections/changeTracker/changeTracker.ts';
import type { Registry } from '../projections/registry/registryProjection.ts';
import { createAgentWriter, writeConcurrency } from './agents/agentWriter.ts';
import { connectionSettings, connectionUrl } from './database/connectionSettings.ts';
import { createFlusher, type Flusher } from './agents/flusher.ts';
import { createBoss, jobQueueSchema, startPurgeJob } from './jobs/jobQueue.ts';
import { createJobsUi, type JobsUi } from './jobs/jobsUi.ts';
import type { JobStore } from './jobs/jobStore.ts';
import { runMigrations } from './database/migrate.ts';
import { createPgJobStore } from './jobs/pgJobStore.ts';
import { createMirrorSync } from './agents/mirrorSync.ts';
import { createNotifications, type Notifications } from './database/notifications.ts';
import { createPgStoreReader } from './agents/pgStoreReader.ts';
import { createPools, splitPool, type Pools } from './database/pools.ts';
import { createSessionLedger, keepaliveMs } from './agents/sessionLedger.ts';
import { createSessionRefresher, sessionPassMs, type SessionRefresher } from './agents/sessionRefresher.ts';
import type { AgentStoreReader } from './agents/storeReader.ts';
import { defaultWritePolicy, writeOps, type WriteOp, type WritePolicy } from './database/writeOp.ts';
import type { PersistenceMetricsFactory } from './persistenceMetrics.ts';

export interface PersistenceDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
  readonly registry: Registry;
  /** The change tracker's windows: what the flusher writes. */
  readonly windows$: Observable<ChangeWindow>;
  /** The bus's events: the list mirror follows this replica's evictions. */
  readonly events$: Observable<FleetEvent>;
  /** The bus: where the store's own facts (AgentsSoftDeleted) are published. */
  readonly publish: (event: FleetEvent) => void;
  readonly disconnectAfterMs: number;
  readonly metrics: PersistenceMetricsFactory;
  readonly writePolicy?: WritePolicy;
}

export interface Persistence {
  readonly reader: AgentStoreReader;
  readonly jobs: JobStore;
  /** Koa middleware for /jobs-ui; answers 503 until start() has loaded the dashboard. */
  readonly jobsUi: Middleware;
  readonly flusher: Flusher;
  /**
   * LISTEN/NOTIFY on one dedicated connection, shared by every part that needs to hear of a
   * sibling's writes (the list mirror listens on agentsFlushedChannel). Started by start().
   */
  readonly notifications: Notifications;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createPersistence(deps: PersistenceDeps): Persistence {
  const { config, logger, scheduler, registry } = deps;
  const settings = connectionSettings(config.database);
  const policy = deps.writePolicy ?? defaultWritePolicy;
  const pools: Pools = createPools(settings, {
    poolMax: config.database.pool_max,
    readTimeoutMs: 5000,
    logger,
  });
  const metrics = deps.metrics({
    writeTimeoutSeconds: Object.fromEntries(writeOps.map((op) => [op, policy.timeoutMs / 1000])) as Record<
      WriteOp,
      number
    >,
    pool: () => ({ acquired: pools.acquired(), max: config.database.pool_max }),
  });
  const writer = createAgentWriter(pools.write, {
    policy,
    observe: (op, seconds) => metrics.observeWrite(op, seconds),
    concurrency: writeConcurrency(splitPool(config.database.pool_max).write),
  });
  const ledger = createSessionLedger(keepaliveMs(deps.disconnectAfterMs, sessionPassMs));
  const flusher = createFlusher({
    windows$: deps.windows$,
    registry,
    writer,
    ledger,
    scheduler,
    logger,
    publish: deps.publish,
  });
  const now = () => scheduler.now();
  const notifications = createNotifications(settings, { logger });
  const mirror = createMirrorSync({
    pool: pools.read,
    notifications,
    events$: deps.events$,
    scheduler,
    logger,
    disconnectAfterMs: deps.disconnectAfterMs,
    reloadAfterMs: config.fleet.soft_delete_duration,
  });
  const reader = createPgStoreReader(pools.read, {
    mirror,
    now,
    disconnectAfterMs: deps.disconnectAfterMs,
  });
  const jobs = createPgJobStore(pools.write, now);
  const boss = createBoss(pools.write, logger, { migrate: true, run: true });
  let refresher: SessionRefresher | undefined;
  let jobsUi: JobsUi | undefined;

  async function start(): Promise<void> {
    try {
      await runMigrations(settings, async () => {
        await boss.start();
      });
      await startPurgeJob({
        boss,
        purge: () => writer.purge(scheduler.now(), config.fleet.soft_delete_duration),
        onPurged: (n) => metrics.purged(n),
        logger,
      });
      jobsUi = await createJobsUi(connectionUrl(config.database), jobQueueSchema);
      // Neither rejects: a failure is logged and retried, and lists answer `partial` meanwhile.
      await notifications.start();
      await mirror.start();
    } catch (error) {
      // Startup fails as a whole (the process exits): release what was opened so far.
      await mirror.stop();
      await notifications.stop();
      await boss.stop({ graceful: false, close: false }).catch(() => undefined);
      await pools.end().catch(() => undefined);
      throw error;
    }
    refresher = createSessionRefresher({ registry, writer, ledger, scheduler, logger });
    logger.info({ host: config.database.host, dbname: config.database.dbname }, 'persistence started');
  }

  async function stop(): Promise<void> {
    await flusher.stop();
    await refresher?.stop();
    await mirror.stop();
    await notifications.stop();
    await boss
      .stop({ graceful: true, timeout: 5000, close: false })
      .catch((error: unknown) => logger.warn({ err: error }, 'job queue stop failed'));
    await jobsUi?.close().catch((error: unknown) => logger.warn({ err: error }, 'job-queue UI close failed'));
    await pools.end();
  }

  const middleware: Middleware = async (ctx, next): Promise<void> => {
    if (jobsUi !== undefined) await jobsUi.middleware(ctx, next);
    else if (ctx.path === '/jobs-ui' || ctx.path.startsWith('/jobs-ui/'))
      ctx.throw(503, 'job-queue UI is starting');
    else await next();
  };

  return { reader, jobs, jobsUi: middleware, flusher, notifications, start, stop };
}
