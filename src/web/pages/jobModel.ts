// A job as the jobs list and the job page's header show it: what it acts on, its status badge, where
// it stands (stage or batch), its targets as a bar, and when it last moved. Pure.

import { rollsOut } from '../../projections/jobs/jobActions.ts';
import type { Job } from '../../projections/jobs/jobStore.ts';
import { actionLabel, jobBadge, jobHref } from './jobLabels.ts';
import { progressBar } from './progressBar.ts';
import { revisionInForce } from '../views/revisionInForce.ts';
import { shortId, toMs } from './format.ts';

/** The latest of the job's lifecycle times: when it last moved (RFC 3339). */
export function lastMoveAt(job: Job): string {
  const times = [
    job.created_at,
    job.armed_at,
    job.started_at,
    job.paused_at,
    job.finished_at,
    job.cancelled_at,
  ];
  let latest = job.created_at;
  for (const t of times) if (t && (toMs(t) ?? 0) > (toMs(latest) ?? 0)) latest = t;
  return latest;
}

/** What the job acts on, in a few words: the config and revision of a rollout, else the filter. */
export function jobSubject(job: Job): string {
  const { config, revision } = job.action_config;
  if (rollsOut(job.action) && typeof config === 'string') return `${config} #${String(revision)}`;
  return job.filter === '' ? 'every agent' : job.filter;
}

/** Where the job stands: `Stage 2 of 3`, `3 batches sent`, `Not armed yet`. */
export function stageText(job: Job, stageCount: number | undefined): string {
  if (job.status === 'planned') return 'Not armed yet';
  const stage = job.stage ?? 0;
  if (job.action === 'restart')
    return stage === 0 ? 'No batch sent yet' : `${stage} ${stage === 1 ? 'batch' : 'batches'} sent`;
  if (stage === 0) return 'No stage reached yet';
  return stageCount === undefined ? `Stage ${stage}` : `Stage ${stage} of ${stageCount}`;
}

export function jobRow(job: Job) {
  const bar = progressBar(job.target_counts ?? {});
  return {
    id: job.id,
    shortId: shortId(job.id),
    href: jobHref(job.id),
    action: actionLabel(job.action),
    subject: jobSubject(job),
    badge: jobBadge(job.status),
    bar,
    /** Under the bar: its counts, or why it is empty. */
    barNote:
      bar.total > 0 ? bar.summary : job.status === 'planned' ? 'targets are found when armed' : 'no targets',
    createdAt: job.created_at,
    movedAt: lastMoveAt(job),
    submittedBy: job.submitted_by,
    /** A rollout: which revision is in force for whom ('' for other jobs). */
    inForce: revisionInForce(job) ?? '',
  };
}

export type JobRow = ReturnType<typeof jobRow>;
