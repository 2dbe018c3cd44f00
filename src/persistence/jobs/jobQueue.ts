// The job queue (SPEC durability rules 17, 22): pg-boss on the write pool. It runs the purge of
// soft-deleted agents, scheduled hourly (pg-boss's own locking makes each hourly run happen once
// across replicas) and sent once at startup by every replica (harmless: a second purge finds nothing
// to delete), and the steps of jobs that act (jobStepper.ts). Both show in the job-queue UI.

import { PgBoss } from 'pg-boss';
import type pg from 'pg';
import type { Logger } from '../../io/logger.ts';

export const purgeQueue = 'purge-soft-deleted-agents';
export const purgeCron = '0 * * * *';
export const jobQueueSchema = 'pgboss';

/** pg-boss through the service's own write pool, so it stays within database.pool_max. */
export function createBoss(
  pool: pg.Pool,
  logger: Logger,
  options: { migrate: boolean; run: boolean },
): PgBoss {
  const boss = new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => pool.query(text, values) },
    schema: jobQueueSchema,
    migrate: options.migrate,
    supervise: options.run,
    schedule: options.run,
    // A replica that dies mid-step leaves its step active: expiry (checked on these passes) hands it
    // to another replica within seconds, not the default minute (docs/jobs.md "Across replicas").
    superviseIntervalSeconds: 5,
    // A worker of a stately queue (job-steps) skips the keys its cached queue row lists as active:
    // the monitor pass writes that list, the queue cache reads it. With pg-boss's default cache of
    // 60 s, a job whose step happened to be active when the list was taken got no step for up to a
    // minute (in fleet-100k, rollouts stalled 50 s with every target finished). Read every second,
    // written every 2 s, a job waits at most a few seconds for the list to catch up.
    monitorIntervalSeconds: 2,
    queueCacheIntervalSeconds: 1,
  });
  // pg-boss reports background failures (for example during a database outage) as events.
  boss.on('error', (error) => logger.warn({ err: error }, 'job queue error'));
  return boss;
}

export interface PurgeJobDeps {
  readonly boss: PgBoss;
  /** Deletes the expired rows; resolves to how many were deleted. */
  readonly purge: () => Promise<number>;
  readonly onPurged: (count: number) => void;
  readonly logger: Logger;
  readonly pollingIntervalSeconds?: number;
}

/** Registers the queue, the hourly schedule and the worker, and sends the startup run. */
export async function startPurgeJob(deps: PurgeJobDeps): Promise<void> {
  const { boss, logger } = deps;
  await boss.createQueue(purgeQueue);
  await boss.schedule(purgeQueue, purgeCron);
  await boss.work(purgeQueue, { pollingIntervalSeconds: deps.pollingIntervalSeconds ?? 2 }, async () => {
    const deleted = await deps.purge();
    deps.onPurged(deleted);
    logger.info({ deleted }, 'purged soft-deleted agents');
    return { deleted };
  });
  await boss.send(purgeQueue, { reason: 'startup' });
}
