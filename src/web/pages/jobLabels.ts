// How the pages name jobs, their statuses and their targets' states (docs/jobs.md). Badge classes
// are prefixed (`job-…`, `tgt-…`) so they never collide with the agent and config badges.

import { actionBehaviour } from '../../projections/jobs/jobActions.ts';
import { isFinal, type JobStatus } from '../../projections/jobs/jobLifecycle.ts';
import type { TargetState } from '../../projections/jobs/jobStore.ts';

export const jobStatusLabels: Readonly<Record<JobStatus, string>> = {
  planned: 'Planned',
  armed: 'Armed',
  running: 'Running',
  paused: 'Paused',
  awaiting_promotion: 'Awaiting promotion',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const targetStateLabels: Readonly<Record<TargetState, string>> = {
  pending: 'Pending',
  in_flight: 'In flight',
  succeeded: 'Succeeded',
  failed: 'Failed',
  skipped: 'Skipped',
  rolled_back: 'Rolled back',
  cancelled: 'Cancelled',
};

/** `Restart`, `Config rollout`; an action this service does not know is shown as recorded. */
export const actionLabel = (action: string): string => actionBehaviour(action)?.label ?? action;

export const jobBadge = (status: JobStatus) => ({ class: `job-${status}`, label: jobStatusLabels[status] });
export const targetBadge = (state: TargetState) => ({
  class: `tgt-${state}`,
  label: targetStateLabels[state],
});

export const jobHref = (id: string): string => `/jobs/${encodeURIComponent(id)}`;

/** Armed, running or paused: the job or its targets still change, so its page polls. */
export const isLive = (status: JobStatus): boolean => status !== 'planned' && !isFinal(status);
