// The statements of a job step (jobStepper.ts): what it loads besides the counts (the targets behind
// the gates, a live job's newcomers) and what it applies (release the next targets, time out the
// ones that did not finish). Pure { text, values }.

import { msTimestamp, type Sql } from '../database/sql.ts';
import { gateAgentsKept } from '../../projections/jobs/stepTargets.ts';
import { connectedSql } from '../agents/filterSql.ts';
import { lateSql, latenessValues, type Lateness } from './lateSql.ts';

/** Releases the next `n` pending targets (in instance_uid order) for `stage`. */
export function releaseTargetsSql(jobId: string, n: number, stage: number, at: number): Sql {
  return {
    text: `UPDATE job_targets t SET state = 'in_flight', stage = $3, dispatched_at = ${msTimestamp('$4')}
FROM (SELECT instance_uid FROM job_targets WHERE job_id = $1 AND state = 'pending'
      ORDER BY instance_uid LIMIT $2) AS next
WHERE t.job_id = $1 AND t.instance_uid = next.instance_uid`,
    values: [jobId, n, stage, at],
  };
}

/**
 * Fails the job's late targets (the same test as targetCountsSql's late), saying `reason`, or
 * `unsentReason` for one never sent.
 */
export function timeOutTargetsSql(
  jobId: string,
  late: Lateness,
  reasons: { readonly reason: string; readonly unsentReason: string },
  at: number,
): Sql {
  return {
    text: `UPDATE job_targets t SET state = 'failed', finished_at = ${msTimestamp('$2')},
  reason = CASE WHEN t.sent_at IS NULL THEN $4 ELSE $3 END
WHERE t.job_id = $1 AND t.state = 'in_flight' AND ${lateSql(5)}`,
    values: [jobId, at, reasons.reason, reasons.unsentReason, ...latenessValues(late)],
  };
}

/**
 * Up to gateAgentsKept targets behind each gate, as the gate counts of targetCountsSql count them
 * (among the targets reached), the late ones (when `late` is given) counted as failed: one row of
 * three arrays, max_failed, max_unhealthy, max_disconnected.
 */
export function behindGatesSql(jobId: string, late: Lateness | undefined): Sql {
  const first = (where: string) =>
    `ARRAY(SELECT t.instance_uid FROM job_targets t WHERE t.job_id = $1 AND ${where}
  ORDER BY t.instance_uid LIMIT ${gateAgentsKept})`;
  const reached = "t.state IN ('in_flight', 'succeeded', 'failed')";
  const failed =
    late === undefined
      ? "t.state = 'failed'"
      : `(t.state = 'failed' OR (t.state = 'in_flight' AND ${lateSql(2)}))`;
  return {
    text: `SELECT ${first(failed)},
  ${first(`${reached} AND t.unhealthy_at IS NOT NULL`)},
  ${first(`${reached} AND t.state <> 'succeeded' AND t.disconnected_at IS NOT NULL`)}`,
    values: late === undefined ? [jobId] : [jobId, ...latenessValues(late)],
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
 * Of the job's targets in flight and not late, those whose agent no replica holds connected at
 * `late.now`: no session row, or one that says disconnected or is no longer fresh (rule 10, as a
 * fleet list reads it). One row, one count. An offline target is late when it was sent or released
 * before `late.before` (lateSql.ts), so the test here is the rest. An anti-join, so the plan is
 * driven by the job's targets in flight whatever the statistics say of them.
 */
export function offlineTargetsSql(jobId: string, late: Lateness): Sql {
  return {
    text: `SELECT count(*)::int FROM job_targets t
WHERE t.job_id = $1 AND t.state = 'in_flight' AND coalesce(t.sent_at, t.dispatched_at) >= ${msTimestamp('$2')}
  AND NOT EXISTS (SELECT 1 FROM agent_session s WHERE s.instance_uid = t.instance_uid
    AND ${connectedSql('$3', '$4')})`,
    values: [jobId, late.before, late.now, late.disconnectAfterMs],
  };
}
