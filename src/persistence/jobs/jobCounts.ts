// A job's targets counted (one query per step): per state, and the gate counts among the targets the
// job reached (in flight or finished), read from the rows of targetCountsSql.

import type { GateCounts } from '../../projections/jobs/rolloutPlan.ts';
import type { TargetState } from '../../projections/jobs/jobStore.ts';

export interface TargetCounts extends GateCounts {
  readonly byState: Readonly<Record<TargetState, number>>;
  /** Every target but the skipped ones: what stages and batches are counted in. */
  readonly eligible: number;
  readonly lastFinishedAt: number;
}

export function countTargets(rows: readonly (readonly unknown[])[]): TargetCounts {
  const byState: Record<TargetState, number> = {
    pending: 0,
    in_flight: 0,
    succeeded: 0,
    failed: 0,
    skipped: 0,
    rolled_back: 0,
    cancelled: 0,
  };
  let unhealthy = 0;
  let disconnected = 0;
  let lastFinishedAt = 0;
  for (const [state, n, sick, lost, finished] of rows) {
    byState[state as TargetState] = n as number;
    if (state === 'in_flight' || state === 'succeeded' || state === 'failed') {
      unhealthy += sick as number;
      disconnected += lost as number;
    }
    lastFinishedAt = Math.max(lastFinishedAt, Math.round(finished as number));
  }
  const reached = byState.in_flight + byState.succeeded + byState.failed;
  return {
    byState,
    eligible: reached + byState.pending,
    reached,
    failed: byState.failed,
    unhealthy,
    disconnected,
    lastFinishedAt,
  };
}
