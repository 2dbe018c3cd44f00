// The job page's live part as template locals: header (status, stage), the buttons the caller may
// use (jobButtons.ts), the gate that paused the job, its targets as one bar and (rollouts) a bar per stage, its
// settings and times, a page of its targets and its events. Pure: the route fetches, this shapes.

import { filterParams } from '../../projections/filter/filterText.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { Job, JobEvent, JobTarget, StageStateCount } from '../../projections/jobs/jobStore.ts';
import { targetStates } from '../../projections/jobs/jobStore.ts';
import { displayName } from '../views/agentView.ts';
import { agentHref } from './fleetModel.ts';
import { jobButtons } from './jobButtons.ts';
import { shortId } from './format.ts';
import { revisionInForce } from '../views/revisionInForce.ts';
import { actionLabel, isLive, jobBadge, jobHref, targetBadge, targetStateLabels } from './jobLabels.ts';
import { jobSubject, stageText } from './jobModel.ts';
import { queryString } from './fleetRequest.ts';
import { jobQueryString, targetPageSize, type JobQuery } from './jobQuery.ts';
import { jobSettings } from './jobSettings.ts';
import { progressBar } from './progressBar.ts';
import { rolloutStages } from './stageProgress.ts';

export interface JobFacts {
  readonly job: Job;
  readonly targets: readonly JobTarget[];
  readonly events: readonly JobEvent[];
  readonly byStage: readonly StageStateCount[];
}

const gateWords: Readonly<Record<string, string>> = {
  max_failed: 'failed',
  max_unhealthy: 'turned unhealthy',
  max_disconnected: 'disconnected',
};

/** What Resume does to a job paused by its gate, in words (docs/jobs.md "Gates"). */
export function resumeText(job: Job): string {
  const failed = job.target_counts?.failed ?? 0;
  const failures = `the ${failed.toLocaleString('en-US')} ${failed === 1 ? 'failure' : 'failures'} so far`;
  const gate = job.gate?.gate;
  if (gate === undefined || gate === 'max_failed')
    return `Resume accepts ${failures}; the gates then count only new failures.`;
  // An unhealthy or disconnected gate: what Resume accepts is first the targets in that state.
  const others = `the targets ${gateWords[gate]} now`;
  return failed === 0
    ? `Resume accepts ${others}; the gates then count only new ones.`
    : `Resume accepts ${others} and ${failures}; the gates then count only new ones.`;
}

function gateLocals(job: Job, nameOf: (uid: string) => string | undefined) {
  const gate = job.gate;
  if (gate === null || gate === undefined) return undefined;
  return {
    ...gate,
    what: gateWords[gate.gate] ?? 'tripped it',
    /** Those the operator accepted at the last resume, besides the count (0 when none). */
    accepted: gate.acknowledged ?? 0,
    resume: job.status === 'paused' ? resumeText(job) : undefined,
    agents: gate.agents.map((uid) => ({ uid, href: agentHref(uid), name: nameOf(uid) ?? shortId(uid) })),
  };
}

function targetRows(targets: readonly JobTarget[], nameOf: (uid: string) => string | undefined) {
  return targets.map((t) => ({
    ...t,
    href: agentHref(t.instance_uid),
    name: nameOf(t.instance_uid) ?? '',
    shortId: shortId(t.instance_uid),
    badge: targetBadge(t.state),
  }));
}

function tiles(job: Job, query: JobQuery) {
  const counts = job.target_counts ?? {};
  const total = targetStates.reduce((n, s) => n + (counts[s] ?? 0), 0);
  const href = (state: (typeof targetStates)[number] | undefined) =>
    `${jobHref(job.id)}${jobQueryString(query, { state, offset: 0 })}#targets`;
  return {
    total,
    list: [
      { state: 'all', label: 'All', value: total, href: href(undefined), active: query.state === undefined },
      ...targetStates
        .filter((s) => (counts[s] ?? 0) > 0 || query.state === s)
        .map((s) => ({
          state: s,
          label: targetStateLabels[s],
          value: counts[s] ?? 0,
          href: href(s),
          active: query.state === s,
        })),
    ],
  };
}

function pager(job: Job, query: JobQuery, shown: number, total: number) {
  const { offset } = query;
  const at = (o: number) => `${jobHref(job.id)}${jobQueryString(query, { offset: o })}#targets`;
  return {
    from: shown === 0 ? 0 : offset + 1,
    to: offset + shown,
    total,
    prevHref: offset > 0 ? at(Math.max(0, offset - targetPageSize)) : '',
    nextHref: offset + targetPageSize < total ? at(offset + targetPageSize) : '',
  };
}

const times = (job: Job) =>
  [
    ['Created', job.created_at],
    ['Armed', job.armed_at],
    ['Dispatch at', job.dispatch_at],
    ['Started', job.started_at],
    ['Paused', job.paused_at],
    ['Finished', job.finished_at],
    ['Cancelled', job.cancelled_at],
  ]
    .filter(([, at]) => at !== null && at !== undefined)
    .map(([term, at]) => ({ term: term!, at: at! }));

/** Why a job has no targets. */
const noTargetsText = (job: Job): string =>
  job.status === 'planned'
    ? 'Targets are found when the job is armed.'
    : job.armed_at === null
      ? 'The job was cancelled before it was armed.'
      : 'Its filter matched no agent when it was armed.';

export function jobPageLocals(
  facts: JobFacts,
  query: JobQuery,
  context: { now: number; writable: boolean; nameOf: (uid: string) => string | undefined },
) {
  const { job } = facts;
  const settings = jobSettings(job);
  const live = isLive(job.status);
  const counts = job.target_counts ?? {};
  const stateTotal = tiles(job, query);
  const shownTotal = query.state === undefined ? stateTotal.total : (counts[query.state] ?? 0);
  return {
    now: context.now,
    job,
    title: `${actionLabel(job.action)} ${shortId(job.id)}`,
    action: actionLabel(job.action),
    subject: jobSubject(job),
    badge: jobBadge(job.status),
    stage: stageText(job, settings.stages?.length),
    live,
    pollUrl: live ? `/partials${jobHref(job.id)}${jobQueryString(query)}` : '',
    apiHref: `/api${jobHref(job.id)}`,
    filterHref: `/${queryString(filterParams(job.filter))}`,
    actions: jobButtons(job, query, context.writable),
    gate: gateLocals(job, context.nameOf),
    inForce: revisionInForce(job),
    overall: progressBar(counts),
    noTargets: noTargetsText(job),
    stages:
      settings.stages === undefined ? [] : rolloutStages(settings.stages, job.stage ?? 0, facts.byStage),
    settings,
    times: times(job),
    tiles: stateTotal.list,
    stateLabel: query.state === undefined ? '' : targetStateLabels[query.state],
    targets: targetRows(facts.targets, context.nameOf),
    pager: pager(job, query, facts.targets.length, shownTotal),
    queryError: query.error,
    events: [...facts.events].reverse(),
  };
}

/** A display name for the agents this replica holds; others are shown by their id. */
export const nameFrom =
  (get: (uid: InstanceUid) => AgentState | undefined) =>
  (uid: string): string | undefined => {
    const agent = get(uid as InstanceUid);
    return agent === undefined ? undefined : displayName(agent);
  };
