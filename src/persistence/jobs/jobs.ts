// Jobs that act, assembled (docs/jobs.md): the store the API uses, the stepper that advances jobs
// through pg-boss (one step of a job at a time across replicas), and this replica's job agents that
// deliver commands and pins to the agents it holds and record target outcomes. What the jobs need
// from the rest of the service comes in as ports (STYLE 20): the OpAMP side's when they are made,
// the fleet's target resolver (built on the store's reader, so after persistence) at start().

import type { PgBoss } from 'pg-boss';
import type pg from 'pg';
import type { SchedulerLike } from 'rxjs';
import type { Logger } from '../../io/logger.ts';
import type { ActionSettings } from '../../projections/jobs/jobActions.ts';
import type { Notifications } from '../database/notifications.ts';
import { createJobAgents, type JobAgentPorts, type JobAgents } from './jobAgents.ts';
import { createJobStepper } from './jobStepper.ts';
import { createStepRequests } from './stepRequests.ts';
import type { Job, JobControl, JobStore, TargetCandidate } from '../../projections/jobs/jobStore.ts';
import { createPgJobStore } from './pgJobStore.ts';

/** What jobs need from the rest of the service when they are made. */
export type JobPorts = JobAgentPorts;

/** The job's targets now: its filter over the fleet, narrowed and checked for the action. */
export type ResolveTargets = (job: Job, settings: ActionSettings) => Promise<TargetCandidate[]>;

export interface JobsDeps {
  readonly pool: pg.Pool;
  readonly boss: PgBoss;
  readonly notifications: Notifications;
  readonly ports: JobPorts;
  /** After a commit that made a rollout's revision current: reload this replica's configs in force. */
  readonly configsChanged: () => Promise<void>;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly replica: string;
  /** Rule 10's threshold: how long a session row says connected without being refreshed. */
  readonly disconnectAfterMs: number;
}

export interface Jobs {
  readonly store: JobStore & JobControl;
  /** After migrations and pg-boss are up, and notifications listen; steps resolve live targets so. */
  start(resolveTargets: ResolveTargets): Promise<void>;
  stop(): Promise<void>;
}

export function createJobs(deps: JobsDeps): Jobs {
  const { ports, scheduler } = deps;
  const now = () => scheduler.now();
  const requestStep = createStepRequests(deps.boss, now, deps.logger);
  const store = createPgJobStore(deps.pool, { now, requestStep, configsChanged: deps.configsChanged });
  let agents: JobAgents | undefined;
  return {
    store,
    async start(resolveTargets) {
      const stepper = createJobStepper({
        pool: deps.pool,
        boss: deps.boss,
        now,
        logger: deps.logger,
        requestStep,
        resolveTargets,
        configsChanged: deps.configsChanged,
        publish: ports.publish,
        disconnectAfterMs: deps.disconnectAfterMs,
      });
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
