// A job's targets counted by stage and state, for the job page's progress per stage: `stage` is the
// rollout stage (or restart batch) a target was released in, null for a target never released
// (pending, skipped, or cancelled before its turn). One grouped scan of the job's targets.

import type { StageStateCount, TargetState } from '../../projections/jobs/jobStore.ts';
import type { Sql } from '../database/sql.ts';

export function targetsByStageSql(jobId: string): Sql {
  return {
    text: `SELECT stage, state, count(*)::int FROM job_targets WHERE job_id = $1
GROUP BY stage, state ORDER BY stage NULLS LAST, state`,
    values: [jobId],
  };
}

export const stageStateCountFromRow = (row: readonly unknown[]): StageStateCount => ({
  stage: row[0] as number | null,
  state: row[1] as TargetState,
  count: row[2] as number,
});
