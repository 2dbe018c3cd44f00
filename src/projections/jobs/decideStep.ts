// One step of a job, decided (docs/jobs.md "Across replicas"): from the locked job, its targets as
// the step sees them (stepTargets.ts) and its settings at `now`, which agents join a live job, which
// moves it makes (a trip with the agents behind its gate), which targets it releases and which facts
// it publishes once the step's transaction committed. Pure: the job stepper loads, calls this,
// applies the answer in one transaction, then publishes.

import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { ActionSettings, Checked, RestartSettings, RolloutSettings } from './jobActions.ts';
import { nextStatus, type JobCommand, type JobStatus } from './jobLifecycle.ts';
import { restartBatchSize, restartWaitMs } from './restartPlan.ts';
import type { JobGate } from './jobStore.ts';
import type { TargetCandidate } from './resolveTargets.ts';
import { resolveLimit } from './amount.ts';
import { planRollout, trippedGate, type Acknowledged } from './rolloutPlan.ts';
import { gateRecord, isCanary, joined, takesNewcomers, type StepTargets } from './stepTargets.ts';
import { afterTimeouts, type TargetCounts } from './targetCounts.ts';

/** How often a job that waits for its targets looks again. */
export const stepTickMs = 1000;

export interface StepJob {
  readonly id: string;
  readonly status: JobStatus;
  /** Restart: batches sent. Rollout: stages reached. */
  readonly stage: number;
  /** When the current batch or stage was released (Unix ms; 0 before the first). */
  readonly stageAt: number;
  /** When an armed job starts running (dispatch_at; Unix ms). */
  readonly dueAt: number;
  /** target_mode live: agents that start matching join while it runs. */
  readonly live: boolean;
  /** Rollout: the gate counts accepted at the last resume (none when absent). */
  readonly acknowledged?: Acknowledged;
}

/** The columns a move sets besides its status (Unix ms). */
export interface MoveChanges {
  readonly started_at?: number;
  readonly stage_at?: number;
  readonly paused_at?: number;
  readonly finished_at?: number;
}

export interface JobMove {
  readonly command: JobCommand;
  readonly from: JobStatus;
  readonly to: JobStatus;
  readonly reason: string;
  readonly changes: MoveChanges;
  /** A trip: the gate and some of the agents behind it (the job's gate, and its event's details). */
  readonly gate?: JobGate;
}

/** Release the next `count` pending targets (in instance_uid order) in batch or stage `stage`. */
export interface Release {
  readonly count: number;
  readonly stage: number;
}

export interface StepDecision {
  /** Newcomers of a live job that become its targets before anything else is applied. */
  readonly joins: readonly TargetCandidate[];
  /** Fail the targets in flight that are late by this deadline (docs/jobs.md `apply_timeout`). */
  readonly timeOut?: Deadline;
  readonly moves: readonly JobMove[];
  readonly releases: readonly Release[];
  /** The batch or stage the job reached in this step, and for a rollout its job-event note. */
  readonly stage?: { readonly stage: number; readonly note?: string };
  /**
   * A rollout that finished with every target succeeded makes its revision the config's current one,
   * in the step's transaction (a rollout with failed targets waits for a decision instead).
   */
  readonly makeCurrent?: { readonly config: string; readonly revision: number };
  /** Published after the step committed. */
  readonly events: readonly FleetEvent[];
  /** Ask for the next step after this long; undefined: the job waits for a command. */
  readonly nextMs: number | undefined;
}

const idle: StepDecision = { joins: [], moves: [], releases: [], events: [], nextMs: undefined };

/**
 * When a target in flight is late (Unix ms; docs/jobs.md `apply_timeout`): one sent its revision or
 * command before `before`; one never sent it, released before `before` while its agent is offline,
 * or before `unsentBefore` (twice the timeout) even while connected. A connected agent waiting its
 * turn to be sent is not failed for the service's own pace, nor held forever.
 */
export interface Deadline {
  readonly before: number;
  readonly unsentBefore: number;
  /** The reason a late target that was sent fails with. */
  readonly reason: string;
  /** The reason a late target never sent fails with. */
  readonly unsentReason: string;
}

/** How many timeouts after its release a connected target never sent is late. */
export const unsentTimeouts = 2;

/** When targets in flight time out: a restart's reconnect_timeout, a rollout's apply_timeout. */
export function timeOutOf(settings: ActionSettings, now: number): Deadline {
  const [timeoutMs, reason, unsentReason] =
    settings.action === 'restart'
      ? [
          settings.reconnectTimeoutMs,
          'did not come back within reconnect_timeout',
          'was never sent the restart',
        ]
      : [settings.applyTimeoutMs, 'did not apply within apply_timeout', 'was never sent the revision'];
  return { before: now - timeoutMs, unsentBefore: now - unsentTimeouts * timeoutMs, reason, unsentReason };
}

function move(job: StepJob, command: JobCommand, reason: string, changes: MoveChanges): JobMove {
  const to = nextStatus(job.status, command);
  if (to === undefined) throw new Error(`a step cannot ${command} a ${job.status} job`);
  return { command, from: job.status, to, reason, changes };
}

export function decideStep(
  job: StepJob,
  targets: StepTargets,
  settings: Checked<ActionSettings>,
  now: number,
): StepDecision {
  if (job.status !== 'armed' && job.status !== 'running') return idle;
  // A live job's newcomers join first: they are part of what the step decides on.
  const joins = takesNewcomers(job) ? (targets.newcomers ?? []) : [];
  const decision = decideOn(job, { ...targets, counts: joined(targets.counts, joins) }, settings, now);
  return joins.length === 0 ? decision : { ...decision, joins };
}

function decideOn(
  job: StepJob,
  targets: StepTargets,
  settings: Checked<ActionSettings>,
  now: number,
): StepDecision {
  if (!settings.ok) {
    // Armed with settings that no longer parse (they were checked at arming): end it, saying why.
    const start = job.status === 'armed' ? [move(job, 'start', 'started', { started_at: now })] : [];
    const fail = move({ ...job, status: 'running' }, 'fail', settings.error, { finished_at: now });
    return { ...idle, moves: [...start, fail] };
  }
  if (job.status === 'armed') {
    if (job.dueAt > now) return { ...idle, nextMs: job.dueAt - now };
    const start = move(job, 'start', 'dispatch_at reached', { started_at: now, stage_at: now });
    const running = decideRunning({ ...job, status: 'running', stageAt: now }, targets, settings.value, now);
    return { ...running, moves: [start, ...running.moves] };
  }
  return decideRunning(job, targets, settings.value, now);
}

function decideRunning(
  job: StepJob,
  targets: StepTargets,
  settings: ActionSettings,
  now: number,
): StepDecision {
  const counts = afterTimeouts(targets.counts, now);
  const decision =
    settings.action === 'restart'
      ? decideRestart(job, counts, settings, now)
      : decideRollout(job, { ...targets, counts }, settings, now);
  return targets.counts.late > 0 ? { ...decision, timeOut: timeOutOf(settings, now) } : decision;
}

function finish(job: StepJob, counts: TargetCounts, now: number): JobMove {
  const failed = counts.byState.failed;
  return failed > 0
    ? move(job, 'fail', `${failed} target(s) failed`, { finished_at: now })
    : move(job, 'succeed', 'every target succeeded or was skipped', { finished_at: now });
}

function decideRestart(job: StepJob, counts: TargetCounts, s: RestartSettings, now: number): StepDecision {
  if (counts.byState.in_flight > 0) return { ...idle, nextMs: stepTickMs };
  if (counts.byState.pending === 0) return { ...idle, moves: [finish(job, counts, now)] };
  const waited = now - Math.max(job.stageAt, counts.lastFinishedAt);
  const wait = restartWaitMs(job.stage, s.backoffCapMs) - waited;
  if (wait > 0) return { ...idle, nextMs: wait };
  const stage = job.stage + 1;
  const count = restartBatchSize(job.stage, s.batchSize, counts.eligible);
  return { ...idle, releases: [{ count, stage }], stage: { stage }, nextMs: stepTickMs };
}

function decideRollout(job: StepJob, targets: StepTargets, s: RolloutSettings, now: number): StepDecision {
  const { counts } = targets;
  const canary = isCanary(job.stage, s.stages.length);
  const tripped = trippedGate(s.gates, counts, canary, job.acknowledged);
  if (tripped !== undefined) {
    const where = canary && tripped.gate === 'max_failed' ? ' in the canary stage' : '';
    const accepted =
      tripped.acknowledged === undefined ? '' : ` (new, besides ${tripped.acknowledged} accepted at resume)`;
    const reason = `${tripped.gate} exceeded${where}: ${tripped.count} > ${tripped.limit}${accepted}`;
    const trip = {
      ...move(job, 'trip', reason, { paused_at: now }),
      gate: gateRecord(tripped, targets.behind),
    };
    const event: FleetEvent = {
      type: 'JobGateTripped',
      at: now,
      data: { jobId: job.id, gate: tripped.gate },
    };
    return { ...idle, moves: [trip], events: [event] };
  }
  const progress = {
    stage: job.stage,
    stageAt: job.stageAt,
    total: counts.eligible,
    reached: counts.reached,
    finished: counts.byState.succeeded + counts.byState.failed,
    lastFinishedAt: counts.lastFinishedAt,
    passable: passableOffline(targets, s, canary),
  };
  const plan = planRollout(progress, s.stages, s.waitMs, now);
  if (plan.kind === 'wait') return { ...idle, nextMs: stepTickMs };
  if (plan.kind === 'finish') return finishRollout(job, counts, s, now);
  return {
    ...idle,
    releases: plan.assign > 0 ? [{ count: plan.assign, stage: plan.stage }] : [],
    stage: { stage: plan.stage, note: `stage ${plan.stage}: ${plan.assign} more target(s)` },
    nextMs: 0,
  };
}

/**
 * The offline targets in flight a later stage need not wait for (docs/jobs.md "Stages"): all of them
 * while max_disconnected allows as many among the targets reached, none in the canary stage, without
 * that gate, or beyond it. They stay in flight: each succeeds when its agent comes back and applies
 * the revision, or fails at apply_timeout, and the rollout finishes only when every target has.
 */
function passableOffline(targets: StepTargets, s: RolloutSettings, canary: boolean): number {
  const offline = targets.offline ?? 0;
  const allowed = s.gates.maxDisconnected;
  if (canary || allowed === undefined || offline === 0) return 0;
  return offline <= resolveLimit(allowed, targets.counts.reached) ? offline : 0;
}

/**
 * Every stage reached and every target finished. All succeeded: the revision becomes current for
 * every agent. Some failed (the gates allowed it): the revision stays in force only for the targets
 * reached, and the job waits for an operator to promote it or roll it back (docs/jobs.md).
 */
function finishRollout(job: StepJob, counts: TargetCounts, s: RolloutSettings, now: number): StepDecision {
  const failed = counts.byState.failed;
  if (failed === 0)
    return {
      ...idle,
      moves: [finish(job, counts, now)],
      makeCurrent: { config: s.config, revision: s.revision },
    };
  const reason = `${failed} target(s) failed: revision ${s.revision} waits for a decision to promote or roll back`;
  return { ...idle, moves: [move(job, 'hold', reason, { paused_at: now })] };
}
