// A job's targets as a step sees them (docs/jobs.md): counted per state, with the gate counts among
// the targets the job reached (in flight or finished) and those in flight past their deadline. Pure.

import type { TargetState } from './jobStore.ts';
import type { GateCounts } from './rolloutPlan.ts';

export interface TargetCounts extends GateCounts {
  readonly byState: Readonly<Record<TargetState, number>>;
  /** Every target but the skipped ones: what stages and batches are counted in. */
  readonly eligible: number;
  /** When the last finished target finished (Unix ms), or 0. */
  readonly lastFinishedAt: number;
  /** In flight, and past the action's timeout (they fail in this step). */
  readonly late: number;
}

export const noTargets: Readonly<Record<TargetState, number>> = {
  pending: 0,
  in_flight: 0,
  succeeded: 0,
  failed: 0,
  skipped: 0,
  rolled_back: 0,
  cancelled: 0,
};

/** The counts once the late targets failed at `now`: what every decision of the step is made on. */
export function afterTimeouts(counts: TargetCounts, now: number): TargetCounts {
  if (counts.late === 0) return counts;
  const byState = {
    ...counts.byState,
    in_flight: counts.byState.in_flight - counts.late,
    failed: counts.byState.failed + counts.late,
  };
  return { ...counts, byState, failed: byState.failed, lastFinishedAt: now, late: 0 };
}
