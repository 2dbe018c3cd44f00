// A job's targets counted (one query per step) from the rows of targetCountsSql: per state, the gate
// counts among the targets the job reached (in flight or finished), and those in flight past their
// deadline.

import type { TargetState } from '../../projections/jobs/jobStore.ts';
import { noTargets, type TargetCounts } from '../../projections/jobs/targetCounts.ts';

export function countTargets(rows: readonly (readonly unknown[])[]): TargetCounts {
  const byState: Record<TargetState, number> = { ...noTargets };
  let unhealthy = 0;
  let disconnected = 0;
  let lastFinishedAt = 0;
  let late = 0;
  for (const [state, n, sick, lost, finished, overdue] of rows) {
    byState[state as TargetState] = n as number;
    if (state === 'in_flight' || state === 'succeeded' || state === 'failed') {
      unhealthy += sick as number;
      disconnected += lost as number;
    }
    lastFinishedAt = Math.max(lastFinishedAt, Math.round(finished as number));
    late += overdue as number;
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
    late,
  };
}
