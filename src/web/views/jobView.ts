// JSON views of jobs (docs/jobs.md "API"). Pure.

import { rollsOut } from '../../projections/jobs/jobActions.ts';
import { allowedCommands, jobCommandTable, type JobCommand } from '../../projections/jobs/jobLifecycle.ts';
import type { Job } from '../../projections/jobs/jobStore.ts';
import { revisionInForce } from './revisionInForce.ts';

/** Commands only a rollout takes. */
const rolloutOnly: ReadonlySet<JobCommand> = new Set(['rollback', 'promote']);

/** The job with the transitions an operator may ask for now, and for a rollout which revision is in force. */
export function jobView(job: Job) {
  const allowed = allowedCommands(job.status).filter(
    (c) => jobCommandTable[c].by === 'operator' && (!rolloutOnly.has(c) || rollsOut(job.action)),
  );
  const inForce = revisionInForce(job);
  return inForce === undefined
    ? { ...job, allowed_actions: allowed }
    : { ...job, allowed_actions: allowed, in_force: inForce };
}
