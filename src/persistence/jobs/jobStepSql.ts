// The statements of a job step (jobStepper.ts): release the next targets, time out the ones that
// did not finish, list the agents behind a tripped gate. Pure { text, values }.

import type { Sql } from '../database/sql.ts';

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

/** Some of the agents behind a gate (for the job's pause reason). */
export function gateAgentsSql(jobId: string, gate: 'max_failed' | 'max_unhealthy' | 'max_disconnected'): Sql {
  const where =
    gate === 'max_failed'
      ? "state = 'failed'"
      : gate === 'max_unhealthy'
        ? 'unhealthy_at IS NOT NULL'
        : "disconnected_at IS NOT NULL AND state <> 'succeeded'";
  return {
    text: `SELECT instance_uid FROM job_targets WHERE job_id = $1 AND ${where} ORDER BY instance_uid LIMIT 20`,
    values: [jobId],
  };
}
