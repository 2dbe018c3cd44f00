// JSON views of jobs (docs/jobs.md "API"). Pure.

import { allowedCommands } from '../../projections/jobs/jobLifecycle.ts';
import type { Job } from '../../projections/jobs/jobStore.ts';

const operatorCommands = new Set(['pause', 'resume', 'cancel', 'rollback', 'arm']);

/** The job with the transitions an operator may ask for now. */
export function jobView(job: Job) {
  const allowed = allowedCommands(job.status).filter(
    (c) => operatorCommands.has(c) && (c !== 'rollback' || job.action === 'config_rollout'),
  );
  return { ...job, allowed_actions: allowed };
}
