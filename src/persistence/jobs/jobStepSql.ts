// The statements of a job step (jobStepper.ts): what it loads besides the counts (the targets behind
// the gates, a live job's newcomers) and what it applies (release the next targets, time out the
// ones that did not finish). Pure { text, values }.

import type { Sql } from '../database/sql.ts';
import { gateAgentsKept } from '../../projections/jobs/stepTargets.ts';
import { connectedSql } from '../agents/filterSql.ts';

const ts = (param: string) => `to_timestamp(${param}::float8 / 1000.0)`;

/** Releases the next `n` pending targets (in instance_uid order) for `stage`. */
export function releaseTargetsSql(jobId: string, n: number, stage: number, at: number): Sql {
  return {
    text: `UPDATE job_targets t SET state = 'in_flight', stage = $3, dispatched_at = ${ts('$4')}
FROM (SELECT instance_uid FROM job_targets WHERE job_id = $1 AND state = 'pending'
      ORDER BY instance_uid LIMIT $2) AS next
WHERE t.job_id = $1 AND t.instance_uid = next.instance_uid`,
    values: [jobId, n, stage, at],
  };
}

/** Fails the targets in flight since before `before` (the same test as targetCountsSql's late). */
export function timeOutTargetsSql(jobId: string, before: number, reason: string, at: number): Sql {
  return {
    text: `UPDATE job_targets SET state = 'failed', reason = $3, finished_at = ${ts('$4')}
WHERE job_id = $1 AND state = 'in_flight' AND coalesce(sent_at, dispatched_at) < ${ts('$2')}`,
    values: [jobId, before, reason, at],
  };
}

/**
 * Up to gateAgentsKept targets behind each gate, as the gate counts of targetCountsSql count them
 * (among the targets reached), the ones in flight since before `lateBefore` counted as failed: one
 * row of three arrays, max_failed, max_unhealthy, max_disconnected.
 */
export function behindGatesSql(jobId: string, lateBefore: number | undefined): Sql {
  const first = (where: string) =>
    `ARRAY(SELECT instance_uid FROM job_targets WHERE job_id = $1 AND ${where}
  ORDER BY instance_uid LIMIT ${gateAgentsKept})`;
  const reached = "state IN ('in_flight', 'succeeded', 'failed')";
  return {
    text: `SELECT ${first(`(state = 'failed' OR (state = 'in_flight' AND coalesce(sent_at, dispatched_at) < ${ts('$2')}))`)},
  ${first(`${reached} AND unhealthy_at IS NOT NULL`)},
  ${first(`${reached} AND state <> 'succeeded' AND disconnected_at IS NOT NULL`)}`,
    values: [jobId, lateBefore ?? null],
  };
}

/** Of the agents `uids`, those that are not targets of the job yet. */
export function newcomersSql(jobId: string, uids: readonly string[]): Sql {
  return {
    text: `SELECT u FROM UNNEST($2::text[]) AS u
WHERE NOT EXISTS (SELECT 1 FROM job_targets t WHERE t.job_id = $1 AND t.instance_uid = u)`,
    values: [jobId, uids],
  };
}

/**
 * Of the job's targets in flight and not late (in flight since `lateBefore` or after), those whose
 * agent no replica holds connected at `now`: no session row, or one that says disconnected or is no
 * longer fresh (rule 10, as a fleet list reads it). One row, one count. An anti-join, so the plan
 * is driven by the job's targets in flight whatever the statistics say of them.
 */
export function offlineTargetsSql(
  jobId: string,
  lateBefore: number,
  now: number,
  disconnectAfterMs: number,
): Sql {
  return {
    text: `SELECT count(*)::int FROM job_targets t
WHERE t.job_id = $1 AND t.state = 'in_flight' AND coalesce(t.sent_at, t.dispatched_at) >= ${ts('$2')}
  AND NOT EXISTS (SELECT 1 FROM agent_session s WHERE s.instance_uid = t.instance_uid
    AND ${connectedSql('$3', '$4')})`,
    values: [jobId, lateBefore, now, disconnectAfterMs],
  };
}
