// What a job step decides on besides the job (docs/jobs.md "Across replicas"): its targets counted,
// some of the targets behind each gate (what a trip records), and for a live job the matching agents
// that are not targets yet. The job stepper loads these; which of them a step needs, and what they
// change, is decided here. Pure.

import type { ActionSettings, Checked } from './jobActions.ts';
import type { JobStatus } from './jobLifecycle.ts';
import type { JobGate } from './jobStore.ts';
import type { TargetCandidate } from './resolveTargets.ts';
import type { GateName, TrippedGate } from './rolloutPlan.ts';
import type { TargetCounts } from './targetCounts.ts';

/** How many of the agents behind a gate a trip records. */
export const gateAgentsKept = 20;

export interface StepTargets {
  readonly counts: TargetCounts;
  /**
   * Up to gateAgentsKept targets behind each gate, in instance_uid order, as the step sees them (the
   * late ones counted as failed). Loaded only when mayTrip; a trip without them records none.
   */
  readonly behind?: Readonly<Record<GateName, readonly string[]>>;
  /** A live job's matching agents that are not its targets yet (loaded only when takesNewcomers). */
  readonly newcomers?: readonly TargetCandidate[];
  /**
   * Targets in flight and not late whose agent no replica holds connected now (loaded only when
   * mayPassOffline): a later stage does not wait for them while max_disconnected allows as many.
   */
  readonly offline?: number;
}

/** A running live job takes the agents that started matching it as targets. */
export const takesNewcomers = (job: { readonly status: JobStatus; readonly live: boolean }): boolean =>
  job.status === 'running' && job.live;

/** Whether a step on these counts can trip a gate: only then does it need to know who is behind one. */
export function mayTrip(settings: Checked<ActionSettings>, counts: TargetCounts): boolean {
  if (!settings.ok || settings.value.action !== 'config_rollout') return false;
  // Every rollout has max_failed (0 unless named), so any count that is not zero may trip.
  return counts.failed + counts.late + counts.unhealthy + counts.disconnected > 0;
}

/**
 * Whether a rollout step could go on without its offline targets (docs/jobs.md "Stages"): past the
 * canary stage, with a max_disconnected gate, while targets that are not late are in flight. Only
 * then does it need to know how many of them are offline.
 */
export function mayPassOffline(
  job: { readonly stage: number },
  settings: Checked<ActionSettings>,
  counts: TargetCounts,
): boolean {
  if (!settings.ok || settings.value.action !== 'config_rollout') return false;
  const s = settings.value;
  return (
    !isCanary(job.stage, s.stages.length) &&
    s.gates.maxDisconnected !== undefined &&
    counts.byState.in_flight > counts.late
  );
}

/** The first stage of a rollout with more than one is its canary. */
export const isCanary = (stage: number, stages: number): boolean => stage === 1 && stages > 1;

/** The counts once the newcomers joined: eligible ones pending, the others skipped. */
export function joined(counts: TargetCounts, newcomers: readonly TargetCandidate[]): TargetCounts {
  if (newcomers.length === 0) return counts;
  const pending = newcomers.filter((t) => t.eligible).length;
  const byState = {
    ...counts.byState,
    pending: counts.byState.pending + pending,
    skipped: counts.byState.skipped + newcomers.length - pending,
  };
  return { ...counts, byState, eligible: counts.eligible + pending };
}

/** What a trip records: the gate, and some of the agents behind it. */
export const gateRecord = (tripped: TrippedGate, behind: StepTargets['behind']): JobGate => ({
  ...tripped,
  agents: behind?.[tripped.gate] ?? [],
});
