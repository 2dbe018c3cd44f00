// Jobs that act, assembled (docs/jobs.md): the store the API uses, the stepper that advances jobs
// through pg-boss (one step of a job at a time across replicas), and this replica's job agents that
// deliver commands and pins to the agents it holds and record target outcomes. What the jobs need
// from the rest of the service comes in as ports (STYLE 20); the composition root binds them.

import type { PgBoss } from 'pg-boss';
import type pg from 'pg';
import type { SchedulerLike } from 'rxjs';
import type { Logger } from '../../io/logger.ts';
import type { ActionSettings } from '../../projections/jobs/jobActions.ts';
import type { Notifications } from '../database/notifications.ts';
import { createJobAgents, type JobAgentPorts, type JobAgents } from './jobAgents.ts';
import { createJobStepper } from './jobStepper.ts';
import type { Job, JobControl, JobStore, TargetCandidate } from '../../projections/jobs/jobStore.ts';
import { createPgJobStore } from './pgJobStore.ts';

/** What jobs need from the rest of the service. */
export interface JobPorts extends JobAgentPorts {
  /** The job's targets now: its filter over the fleet, narrowed and checked for the action. */
  readonly resolveTargets: (job: Job, settings: ActionSettings) => Promise<TargetCandidate[]>;
}

export interface JobsDeps {
  readonly pool: pg.Pool;
  readonly boss: PgBoss;
  readonly notifications: Notifications;
  readonly ports: JobPorts;
  readonly makeCurrent: (config: string, revision: number) => Promise<boolean>;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly replica: string;
}

export interface Jobs {
  readonly store: JobStore & JobControl;
  /** After migrations and pg-boss are up, and notifications listen. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createJobs(deps: JobsDeps): Jobs {
  const { ports, scheduler } = deps;
  const now = () => scheduler.now();
  const stepper = createJobStepper({
    pool: deps.pool,
    boss: deps.boss,
    now,
    logger: deps.logger,
    resolveTargets: ports.resolveTargets,
    makeCurrent: deps.makeCurrent,
    publish: ports.publish,
  });
  const requestStep = (jobId: string) => stepper.requestStep(jobId);
  const store = createPgJobStore(deps.pool, { now, requestStep });
  let agents: JobAgents | undefined;
  return {
    store,
    async start() {
      await stepper.start();
      agents = createJobAgents({
        ...ports,
        pool: deps.pool,
        notifications: deps.notifications,
        requestStep,
        scheduler,
        logger: deps.logger,
        replica: deps.replica,
      });
      await agents.start();
    },
    async stop() {
      await agents?.stop();
    },
  };
}
