// The agent page's Jobs section: the jobs that touched the agent (JobControl.jobsOfAgent, newest
// first), each with the agent's own target record in it. Pure.

import type { Job, JobTarget } from '../../projections/jobs/jobStore.ts';
import { shortId } from './format.ts';
import { actionLabel, jobBadge, jobHref, targetBadge } from './jobLabels.ts';
import { jobSubject } from './jobModel.ts';

export function agentJobRows(entries: readonly { readonly job: Job; readonly target: JobTarget }[]) {
  return entries.map(({ job, target }) => ({
    href: jobHref(job.id),
    id: job.id,
    shortId: shortId(job.id),
    action: actionLabel(job.action),
    subject: jobSubject(job),
    jobBadge: jobBadge(job.status),
    targetBadge: targetBadge(target.state),
    stage: target.stage,
    reason: target.reason,
    createdAt: job.created_at,
    releasedAt: target.dispatched_at,
    finishedAt: target.finished_at,
  }));
}

export type AgentJobRow = ReturnType<typeof agentJobRows>[number];
