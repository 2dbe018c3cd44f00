// The Roll out… form's numbers before arming (issue 30): how many agents the rollout targets now,
// how many each stage gives the revision to, and what each gate means in counts at that stage. Pure
// apart from rolloutPreviewLocals, which resolves the targets exactly as arming does (jobTargets.ts).
//
// The counts come from the rollout's own rule (resolveLimit, trippedGate's canary rule): a gate's
// share is of the targets reached so far and rounds DOWN (10 % of 9 reached is 0, so the first
// failure trips it), a gate trips when its count exceeds the limit, and the canary stage (the first of
// several) pauses on its first failure whatever max_failed says (docs/jobs.md "Gates").

import { formatAmount, resolveLimit, type Amount } from '../../projections/jobs/amount.ts';
import type { Gates, RolloutSettings } from '../../projections/jobs/jobActions.ts';
import { parseActionSettings } from '../../projections/jobs/jobActions.ts';
import { stageCounts } from '../../projections/jobs/rolloutPlan.ts';
import { createJobTargetResolver, TargetError } from '../read/jobTargets.ts';
import type { PagesDeps } from './pageContext.ts';
import type { RolloutForm } from './rolloutForm.ts';
import { rolloutJob } from './rolloutForm.ts';

export interface GateAtStage {
  readonly gate: string;
  readonly setting: string;
  /** The count that trips the gate (limit + 1), or undefined when this stage cannot reach it. */
  readonly tripsAt: number | undefined;
}

export interface StageNumbers {
  readonly stage: number;
  readonly setting: string;
  /** Targets given the revision in this stage. */
  readonly size: number;
  /** Targets reached once this stage is reached. */
  readonly reached: number;
  readonly gates: readonly GateAtStage[];
}

function gateRows(gates: Gates, canary: boolean): [string, Amount][] {
  const rows: [string, Amount | undefined][] = [
    ['failed', canary ? { count: 0 } : gates.maxFailed],
    ['unhealthy', gates.maxUnhealthy],
    ['disconnected', gates.maxDisconnected],
  ];
  return rows.filter((row): row is [string, Amount] => row[1] !== undefined);
}

export function stageNumbers(
  settings: Pick<RolloutSettings, 'stages' | 'gates'>,
  eligible: number,
): StageNumbers[] {
  const counts = stageCounts(settings.stages, eligible);
  return counts.map((reached, i) => ({
    stage: i + 1,
    setting: formatAmount(settings.stages[i]!),
    size: reached - (counts[i - 1] ?? 0),
    reached,
    gates: gateRows(settings.gates, i === 0 && counts.length > 1).map(([gate, amount]) => {
      const limit = resolveLimit(amount, reached);
      return { gate, setting: formatAmount(amount), tripsAt: limit + 1 <= reached ? limit + 1 : undefined };
    }),
  }));
}

export interface RolloutPreview {
  readonly error?: string;
  /** Agents the rollout would give the revision to. */
  readonly eligible?: number;
  /** Matched agents kept as skipped (they cannot take remote config). */
  readonly skipped?: number;
  readonly stages?: readonly StageNumbers[];
}

/** The numbers for `form` rolling out `revision` of `config` if it were armed now. */
export async function rolloutPreviewLocals(
  deps: PagesDeps,
  config: string,
  revision: number,
  form: RolloutForm,
): Promise<RolloutPreview> {
  const job = rolloutJob(form, config, revision, 'preview');
  if (!job.ok) return { error: job.error };
  const settings = parseActionSettings('config_rollout', job.value.action_config);
  if (!settings.ok || settings.value.action !== 'config_rollout') return { error: 'not a rollout' };
  const resolve = createJobTargetResolver({
    reader: deps.reader,
    desiredFor: (agent) => deps.desired.desiredFor(agent),
    configs: deps.configs,
  });
  try {
    const targets = await resolve(job.value, settings.value);
    const eligible = targets.filter((t) => t.eligible).length;
    return {
      eligible,
      skipped: targets.length - eligible,
      stages: stageNumbers(settings.value, eligible),
    };
  } catch (error) {
    if (error instanceof TargetError) return { error: error.message };
    throw error;
  }
}
