// Persistence on PostgreSQL (SPEC durability rules 1-22), assembled. createApp builds it only when
// database.host is set (rule 1): with the host empty nothing here is created, no connection is
// attempted and no persistence metric is registered.
//
// Two steps, so the composition root never needs a lambda to reach something made later:
// openDatabase() makes the pools and the credential store (the OpAMP admission asks it, and the
// fleet core is built on the admission); createPersistence() builds the rest on that database and
// on the core's bus and registry.
//
// Lifecycle: created with the app (the flusher subscribes to the change tracker, and the stored
// lists' eviction mask to the bus, before any event flows); start() migrates under the advisory
// lock, starts the job queue and the purge job, listens for notifications, and starts the
// session-refresh pass and the job-queue UI; stop() is called after the bus completed, so the
// change tracker's final window is already marked: it waits for the flush in flight, flushes once
// more, then stops the eviction mask and the notifications and closes the job queue and the pools.

import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Observable, SchedulerLike } from 'rxjs';
import type { FleetEvent } from '../events/fleetEvent.ts';
import type { Config } from '../io/config/schema.ts';
import type { Logger } from '../io/logger.ts';
import type { Registry } from '../projections/registry/registryProjection.ts';
import { createAgentWriter, writeConcurrency } from './agents/agentWriter.ts';
import { connectionSettings, connectionUrl, type ConnectionSettings } from './database/connectionSettings.ts';
import { createFlusher, type Flusher } from './agents/flusher.ts';
import { createBoss, jobQueueSchema, startPurgeJob } from './jobs/jobQueue.ts';
import { createJobsUi, type JobsUi } from './jobs/jobsUi.ts';
import type { JobStore } from '../projections/jobs/jobStore.ts';
import { runMigrations } from './database/migrate.ts';
import { createPgStoredLists } from './agents/pgStoredLists.ts';
import { confirmingHeld, createHeldRows } from './agents/heldRows.ts';
import { createPgStoreReader } from './agents/pgStoreReader.ts';
import { createPools, splitPool, type Pools } from './database/pools.ts';
import { createSessionLedger, keepaliveMs, type SocketAlive } from './agents/sessionLedger.ts';
import { createSessionRefresher, sessionPassMs, type SessionRefresher } from './agents/sessionRefresher.ts';
import type { AgentStoreReader } from './agents/storeReader.ts';
import { defaultWritePolicy, writeOps, type WriteOp, type WritePolicy } from './database/writeOp.ts';
import type { PersistenceMetricsFactory } from './persistenceMetrics.ts';
import { createJobs, type JobPorts, type ResolveTargets } from './jobs/jobs.ts';
import type { JobControl } from '../projections/jobs/jobStore.ts';
import { createConfigSync } from './configs/configSync.ts';
import { createPgConfigCatalog, type PgConfigCatalog } from './configs/pgConfigCatalog.ts';
import { createNotifications, type Notifications } from './database/notifications.ts';
import type { CredentialStore } from '../projections/identity/credentialStore.ts';
import { createChangeTracker } from '../projections/changeTracker/changeTracker.ts';
import { createPgCredentialStore } from './identity/pgCredentialStore.ts';
import { listenForRevocations } from './identity/revocationListener.ts';
import type { AuditLog } from '../projections/access/auditLog.ts';
import type { SessionStore } from '../projections/access/signInSession.ts';
import { createPgAuditLog, createPgSessionStore } from './access/pgAccessStores.ts';

/** The connection pools and what needs nothing but them: made before the fleet core. */
export interface Database {
  readonly settings: ConnectionSettings;
  readonly pools: Pools;
  /** Agent credential bindings and issued certificates, shared by every replica. */
  readonly credentials: CredentialStore;
  /** Names this instance in revocation notices, unique even for two services in one process (specs). */
  readonly notifier: string;
  /** People's UI sessions and first-run codes, honoured by every replica. */
  readonly sessions: SessionStore;
  /** Who did what, one history for every replica. */
  readonly audit: AuditLog;
}

/** No connection is made here: the pools connect on first use (after start() migrated). */
export function openDatabase(config: Config, logger: Logger, replica: string): Database {
  const settings = connectionSettings(config.database);
  const pools = createPools(settings, { poolMax: config.database.pool_max, readTimeoutMs: 5000, logger });
  const notifier = `${replica}:${randomUUID()}`;
  return {
    settings,
    pools,
    notifier,
    credentials: createPgCredentialStore(pools.write, { replica: notifier }),
    sessions: createPgSessionStore(pools.write, pools.read),
    audit: createPgAuditLog(pools.write, pools.read),
  };
}

export interface PersistenceDeps {
  readonly database: Database;
  readonly config: Config;
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
  readonly registry: Registry;
  /**
   * The bus's events: the change tracker made here folds them into the windows the flusher writes
   * (its final window arrives when the bus completes, before stop()), and the stored lists' eviction
   * mask follows this replica's evictions.
   */
  readonly events$: Observable<FleetEvent>;
  /** The bus: where the store's own facts (AgentsSoftDeleted) are published. */
  readonly publish: (event: FleetEvent) => void;
  readonly disconnectAfterMs: number;
  /**
   * When the WebSocket here that holds a connected agent last answered (a message or a pong), or
   * undefined when none holds it: written as the session's alive time (sessionLedger.ts).
   */
  readonly socketAlive?: SocketAlive;
  readonly metrics: PersistenceMetricsFactory;
  /** Whether remote configs live in the database (false when remote_config.dir is the source). */
  readonly remoteConfigs: boolean;
  /** What jobs need from the rest of the service. */
  readonly jobs: JobPorts;
  /** Names this replica in job records (who sent a command). */
  readonly replica: string;
  readonly writePolicy?: WritePolicy;
}

export interface Persistence {
  readonly reader: AgentStoreReader;
  readonly jobs: JobStore & JobControl;
  /** Koa middleware for /jobs-ui; answers 503 until start() has loaded the dashboard. */
  readonly jobsUi: Middleware;
  readonly flusher: Flusher;
  /**
   * LISTEN/NOTIFY on one dedicated connection, shared by every part that needs to hear of a
   * sibling's writes (remote configs, jobs, revocations). Started by start().
   */
  readonly notifications: Notifications;
  /** The remote config catalog, when configs live in the database; writes wait for the reload. */
  readonly configs: PgConfigCatalog | undefined;
  /** `late` is what persistence needs of what is built on it (the fleet reader merges its store). */
  start(late: PersistenceStartPorts): Promise<void>;
  stop(): Promise<void>;
}

export interface PersistenceStartPorts {
  /** A job's targets over the merged fleet (web/read/jobTargets.ts); live jobs' steps call it. */
  readonly resolveTargets: ResolveTargets;
}

export function createPersistence(deps: PersistenceDeps): Persistence {
  const { config, logger, scheduler, registry } = deps;
  const { settings, pools, notifier } = deps.database;
  const policy = deps.writePolicy ?? defaultWritePolicy;
  const metrics = deps.metrics({
    writeTimeoutSeconds: Object.fromEntries(writeOps.map((op) => [op, policy.timeoutMs / 1000])) as Record<
      WriteOp,
      number
    >,
    pool: () => ({ acquired: pools.acquired(), max: config.database.pool_max }),
  });
  const held = createHeldRows(notifier, deps.events$);
  const writer = confirmingHeld(
    createAgentWriter(pools.write, {
      policy,
      observe: (op, seconds) => metrics.observeWrite(op, seconds),
      concurrency: writeConcurrency(
        splitPool(config.database.pool_max).write,
        config.database.write_concurrency,
      ),
      heldBy: held.name,
    }),
    held,
  );
  const ledger = createSessionLedger(keepaliveMs(deps.disconnectAfterMs, sessionPassMs), deps.socketAlive);
  const changes = createChangeTracker(deps.events$, { scheduler });
  const flusher = createFlusher({
    windows$: changes.windows$,
    registry,
    writer,
    ledger,
    scheduler,
    logger,
    publish: deps.publish,
  });
  const now = () => scheduler.now();
  const notifications = createNotifications(settings, { logger });
  const lists = createPgStoredLists({
    pool: pools.read,
    held,
    events$: deps.events$,
    now,
    logger,
    disconnectAfterMs: deps.disconnectAfterMs,
  });
  const reader = createPgStoreReader(pools.read, {
    lists,
    now,
    disconnectAfterMs: deps.disconnectAfterMs,
  });
  const boss = createBoss(pools.write, logger, { migrate: true, run: true });
  const configSync = deps.remoteConfigs
    ? createConfigSync({
        pool: pools.write,
        notifications,
        publish: deps.publish,
        scheduler,
        logger,
      })
    : undefined;
  const configs =
    configSync &&
    reloadingAfterWrites(createPgConfigCatalog(pools.write, now), () => configSync.refresh(), logger);
  const jobs = createJobs({
    pool: pools.write,
    boss,
    notifications,
    ports: deps.jobs,
    configsChanged: () => configSync?.refresh() ?? Promise.resolve(),
    scheduler,
    logger,
    replica: deps.replica,
    disconnectAfterMs: deps.disconnectAfterMs,
  });
  // Siblings' revocations reach this replica's bus (AgentCredentialRevoked).
  const stopRevocations = listenForRevocations({
    notifications,
    pool: pools.read,
    publish: deps.publish,
    now,
    replica: notifier,
    logger,
  });
  let refresher: SessionRefresher | undefined;
  let jobsUi: JobsUi | undefined;

  async function start(late: PersistenceStartPorts): Promise<void> {
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
      // None of these rejects: a failure is logged and retried (lists answer `partial` meanwhile).
      await notifications.start();
      await configSync?.start();
      await jobs.start(late.resolveTargets);
    } catch (error) {
      // Startup fails as a whole (the process exits): release what was opened so far.
      lists.stop();
      held.stop();
      await notifications.stop();
      await boss.stop({ graceful: false, close: false }).catch(() => undefined);
      await pools.end().catch(() => undefined);
      throw error;
    }
    refresher = createSessionRefresher({ registry, writer, ledger, scheduler, logger });
    logger.info({ host: config.database.host, dbname: config.database.dbname }, 'persistence started');
  }

  async function stop(): Promise<void> {
    await jobs.stop();
    await flusher.stop();
    changes.stop();
    await refresher?.stop();
    await configSync?.stop();
    lists.stop();
    held.stop();
    stopRevocations();
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

  return {
    reader,
    jobs: jobs.store,
    jobsUi: middleware,
    flusher,
    notifications,
    configs,
    start,
    stop,
  };
}

/**
 * The catalog, with every successful write followed by this replica's reload, so the writer's own
 * agents are served the change before the API answers (siblings hear of it through NOTIFY).
 */
function reloadingAfterWrites(
  catalog: PgConfigCatalog,
  reload: () => Promise<void>,
  logger: Logger,
): PgConfigCatalog {
  const after = async <T extends { ok: boolean }>(outcome: Promise<T>): Promise<T> => {
    const result = await outcome;
    if (result.ok)
      await reload().catch((error: unknown) =>
        logger.warn({ err: error }, 'remote config reload failed; retried'),
      );
    return result;
  };
  return {
    ...catalog,
    create: (name, write) => after(catalog.create(name, write)),
    update: (name, write, base) => after(catalog.update(name, write, base)),
    restore: (name, revision, author, base) => after(catalog.restore(name, revision, author, base)),
    remove: (name, author, base) => after(catalog.remove(name, author, base)),
  };
}
