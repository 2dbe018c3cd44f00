// A config rollout's progress per stage for the job page (docs/jobs.md "Stages"). A stage reached
// shows the targets released in it, by state; a stage not reached yet shows the targets it will
// take, out of those not released (pending, or cancelled when the job ended before their turn),
// sized by the rollout's cumulative stages over every target that is not skipped, as the stepper
// sizes them. Skipped targets belong to no stage. Pure.

import type { Amount } from '../../projections/jobs/amount.ts';
import { formatAmount } from '../../projections/jobs/amount.ts';
import { stageCounts } from '../../projections/jobs/rolloutPlan.ts';
import type { StageStateCount, TargetState } from '../../projections/jobs/jobStore.ts';
import { barOrder, progressBar, type ProgressBar } from './progressBar.ts';

export interface StageRow {
  /** 1-based. */
  readonly stage: number;
  /** How far the stage reaches, as action_config writes it: `1 target`, `50%`, `100%`. */
  readonly amount: string;
  /** Targets reached once this stage is (cumulative). */
  readonly upTo: number;
  readonly bar: ProgressBar;
  readonly reached: boolean;
}

type Counts = Partial<Record<TargetState, number>>;

const add = (counts: Counts, state: TargetState, n: number) => {
  counts[state] = (counts[state] ?? 0) + n;
};
const sum = (counts: Counts) => Object.values(counts).reduce((a, b) => a + b, 0);

const amountLabel = (amount: Amount | undefined): string =>
  amount === undefined
    ? ''
    : 'count' in amount
      ? `${amount.count} ${amount.count === 1 ? 'target' : 'targets'}`
      : formatAmount(amount);

/** Takes `n` targets out of `waiting`, pending ones first. */
function take(waiting: Counts, n: number): Counts {
  const out: Counts = {};
  let left = n;
  for (const state of ['pending', ...barOrder.filter((s) => s !== 'pending')] as TargetState[]) {
    const k = Math.min(left, waiting[state] ?? 0);
    if (k === 0) continue;
    add(out, state, k);
    waiting[state] = (waiting[state] ?? 0) - k;
    left -= k;
  }
  return out;
}

/**
 * `stages` are the rollout's cumulative stages, `reached` the stages it has reached (the job's
 * `stage`), `byStage` its targets counted by release stage and state.
 */
export function rolloutStages(
  stages: readonly Amount[],
  reached: number,
  byStage: readonly StageStateCount[],
): StageRow[] {
  const released = new Map<number, Counts>();
  const waiting: Counts = {};
  for (const { stage, state, count } of byStage) {
    if (stage === null) {
      if (state !== 'skipped') add(waiting, state, count);
      continue;
    }
    const counts = released.get(stage) ?? {};
    add(counts, state, count);
    released.set(stage, counts);
  }
  const releasedTotal = [...released.values()].reduce((n, c) => n + sum(c), 0);
  const cumulative = stageCounts(stages, releasedTotal + sum(waiting));
  const last = Math.max(stages.length, ...released.keys());
  const rows: StageRow[] = [];
  let upTo = 0;
  for (let stage = 1; stage <= last; stage++) {
    const isReached = stage <= reached || released.has(stage);
    const counts = isReached
      ? (released.get(stage) ?? {})
      : take(waiting, Math.max(0, (cumulative[stage - 1] ?? upTo) - upTo));
    upTo += sum(counts);
    const amount = stages[stage - 1];
    rows.push({
      stage,
      amount: amountLabel(amount),
      upTo,
      bar: progressBar(counts),
      reached: isReached,
    });
  }
  return rows;
}
