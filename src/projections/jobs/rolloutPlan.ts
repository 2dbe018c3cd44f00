// How a config rollout moves through its stages, and when its gates trip (docs/jobs.md). Pure: the
// job stepper feeds it the counts it reads from the job's targets and acts on the answer.

import { resolveAmount, resolveLimit, type Amount } from './amount.ts';
import type { Gates } from './jobActions.ts';

/** Cumulative targets per stage for `total` eligible targets: never decreasing, the last is `total`. */
export function stageCounts(stages: readonly Amount[], total: number): number[] {
  const counts: number[] = [];
  for (const stage of stages) counts.push(Math.max(counts.at(-1) ?? 0, resolveAmount(stage, total)));
  if (counts.length > 0) counts[counts.length - 1] = total;
  return counts;
}

export interface RolloutProgress {
  /** Stages reached so far (0 before the first). */
  readonly stage: number;
  /** When the current stage was reached (Unix ms). */
  readonly stageAt: number;
  /** Eligible targets (those that can take remote config). */
  readonly total: number;
  /** Targets given the new revision so far. */
  readonly reached: number;
  /** Of those, how many have finished (applied or failed). */
  readonly finished: number;
  /** When the last of them finished (Unix ms), or 0. */
  readonly lastFinishedAt: number;
  /** Of those in flight, how many are offline and need not hold a later stage (0: every one holds it). */
  readonly passable?: number;
}

export type RolloutStep =
  | { readonly kind: 'wait' }
  /** Reach stage `stage`: give the revision to `assign` more targets. */
  | { readonly kind: 'advance'; readonly stage: number; readonly assign: number }
  | { readonly kind: 'finish' };

/**
 * The first stage starts at once. A later one starts when every target reached so far has finished
 * (or is among the `passable` offline ones) and `waitMs` has passed since the current stage started
 * and since its last target finished. After the last stage, the rollout finishes when every target
 * has, offline or not.
 */
export function planRollout(
  p: RolloutProgress,
  stages: readonly Amount[],
  waitMs: number,
  now: number,
): RolloutStep {
  const counts = stageCounts(stages, p.total);
  if (p.stage === 0) return { kind: 'advance', stage: 1, assign: counts[0] ?? p.total };
  if (p.finished + (p.passable ?? 0) < p.reached) return { kind: 'wait' };
  if (p.stage >= counts.length) return p.finished < p.reached ? { kind: 'wait' } : { kind: 'finish' };
  if (now - Math.max(p.stageAt, p.lastFinishedAt) < waitMs) return { kind: 'wait' };
  return { kind: 'advance', stage: p.stage + 1, assign: (counts[p.stage] ?? p.total) - p.reached };
}

export type GateName = 'max_failed' | 'max_unhealthy' | 'max_disconnected';

export interface GateCounts {
  /** Targets given the new revision so far: what a gate's share is of. */
  readonly reached: number;
  readonly failed: number;
  readonly unhealthy: number;
  readonly disconnected: number;
}

/** The gate counts an operator accepted by resuming the job (docs/jobs.md "Gates"): none at first. */
export interface Acknowledged {
  readonly failed: number;
  readonly unhealthy: number;
  readonly disconnected: number;
}

export const noneAcknowledged: Acknowledged = { failed: 0, unhealthy: 0, disconnected: 0 };

/** What a resume accepts: the gate counts as they are when the operator resumes. */
export const acknowledgedOf = (counts: GateCounts): Acknowledged => ({
  failed: counts.failed,
  unhealthy: counts.unhealthy,
  disconnected: counts.disconnected,
});

/** What a resume accepted, in words for its job event ('' when nothing). */
export function acknowledgedText(a: Acknowledged): string {
  const parts = (
    [
      [a.failed, 'failed'],
      [a.unhealthy, 'unhealthy'],
      [a.disconnected, 'disconnected'],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}`);
  return parts.length === 0 ? '' : `accepted ${parts.join(', ')} target(s) so far`;
}

export interface TrippedGate {
  readonly gate: GateName;
  readonly limit: number;
  /** The targets behind the gate beyond those accepted at the last resume. */
  readonly count: number;
  /** Targets behind the gate accepted at the last resume (absent when none were). */
  readonly acknowledged?: number;
}

/**
 * The first gate whose count exceeds its limit (a count, or a share of the targets reached rounded
 * down). In the canary stage (the first of several) max_failed is 0 whatever was asked: the canary is
 * there to stop the rollout on its failure. A count is what came on top of what the operator accepted
 * by resuming (`acknowledged`): a resume goes on past the failures it saw, and only new ones trip.
 */
export function trippedGate(
  gates: Gates,
  counts: GateCounts,
  canary = false,
  acknowledged: Acknowledged = noneAcknowledged,
): TrippedGate | undefined {
  const checks: [GateName, Amount | undefined, number, number][] = [
    ['max_failed', canary ? { count: 0 } : gates.maxFailed, counts.failed, acknowledged.failed],
    ['max_unhealthy', gates.maxUnhealthy, counts.unhealthy, acknowledged.unhealthy],
    ['max_disconnected', gates.maxDisconnected, counts.disconnected, acknowledged.disconnected],
  ];
  for (const [gate, amount, total, accepted] of checks) {
    if (amount === undefined) continue;
    const limit = resolveLimit(amount, counts.reached);
    const count = total - accepted;
    if (count > limit)
      return accepted > 0 ? { gate, limit, count, acknowledged: accepted } : { gate, limit, count };
  }
  return undefined;
}
