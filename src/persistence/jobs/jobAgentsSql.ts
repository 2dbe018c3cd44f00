// What each replica reads and writes for the job targets it may hold (jobAgents.ts). Pure.

import { msTimestamp, type Sql } from '../database/sql.ts';
import { arrayLiteral } from '../database/arrayLiteral.ts';
import type { Observation } from '../../projections/jobs/targetOutcome.ts';
import { statusListSql } from './statusListSql.ts';

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

/** Targets released and not finished, of jobs whose targets are watched (running, paused, …). */
export function inFlightSql(): Sql {
  return {
    text: `SELECT t.job_id::text, j.action, j.status, t.instance_uid, ${ms('t.sent_at')},
  coalesce(t.baseline_start_nanos, 0)::text, ${ms('t.dispatched_at')}, j.action_config->'disconnect_window'
FROM job_targets t JOIN jobs j ON j.id = t.job_id
WHERE t.state = 'in_flight' AND j.status IN ${statusListSql('watched')}`,
    values: [],
  };
}

/**
 * Claims a restart command for this replica: only one replica ever gets the row, and only while the
 * job runs, so a command goes out once however many replicas see the agent.
 */
export function claimCommandSql(
  jobId: string,
  uid: string,
  replica: string,
  baselineNanos: bigint,
  at: number,
): Sql {
  return {
    text: `UPDATE job_targets t SET sent_at = ${msTimestamp('$5')}, sent_by = $3, baseline_start_nanos = $4::numeric
FROM jobs j
WHERE t.job_id = $1 AND t.instance_uid = $2 AND t.state = 'in_flight' AND t.sent_at IS NULL
  AND j.id = t.job_id AND j.status = 'running'
RETURNING t.instance_uid`,
    values: [jobId, uid, replica, baselineNanos.toString(), at],
  };
}

/**
 * What rollouts pin: the reached targets (in flight or finished) of rollouts that hold their config
 * (running, paused, awaiting promotion),
 * and of cancelled ones while their config's current revision is still the one they started from
 * (a later write to the config releases them), with the content of the pinned revision.
 */
export function pinsSql(): Sql {
  return {
    text: `SELECT r.name, r.revision, r.selector, r.body, r.content_type, r.enabled, r.body_hash,
  array_agg(t.instance_uid ORDER BY t.instance_uid)
FROM jobs j
JOIN job_targets t ON t.job_id = j.id AND t.state IN ('in_flight', 'succeeded', 'failed')
${pinningJobs}
GROUP BY r.name, r.revision, r.selector, r.body, r.content_type, r.enabled, r.body_hash`,
    values: [],
  };
}

/** The rollouts that pin (pinsSql's), with the config and revision each pins. */
const pinningJobs = `JOIN remote_configs c ON c.name = j.action_config->>'config'
JOIN remote_config_revisions r ON r.name = c.name AND r.revision = (j.action_config->>'revision')::integer
WHERE j.action = 'config_rollout'
  AND (j.status IN ${statusListSql('holdsConfig')}
    OR (j.status = 'cancelled' AND c.current_revision IS NOT DISTINCT FROM j.from_revision))`;

/**
 * What the pins depend on, without their targets: each pinning rollout's id, status, stage and when
 * it was reached. A rollout's reached targets change only when a step releases a stage (which sets
 * the stage and its time) or the job moves, so while this is the same the pins are too, and the
 * job agents need not read 100,000 pinned ids again (jobAgents.ts).
 */
export function pinsVersionSql(): Sql {
  return {
    text: `SELECT string_agg(concat_ws(':', j.id, j.status, j.stage, ${ms('j.stage_at')}, r.revision), ',' ORDER BY j.id)
FROM jobs j
${pinningJobs}`,
    values: [],
  };
}

export interface TargetObservation extends Observation {
  readonly jobId: string;
  readonly uid: string;
}

/**
 * Records what a replica decided about targets still in flight (targetOutcome.ts): an outcome ends
 * the target; unhealthy, disconnected and sent times are kept from their first observation. A
 * target that finished meanwhile (timed out, cancelled) is left alone. Returns per row the job
 * touched, or null when only a sent time was written (that changes no count a step decides on).
 */
export function observeTargetsSql(o: readonly TargetObservation[]): Sql {
  const col = (f: (x: TargetObservation) => string | number | null) => arrayLiteral(o.map(f));
  return {
    text: `WITH o AS (
  SELECT * FROM UNNEST($1::uuid[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::float8[], $7::float8[],
    $8::float8[])
    AS o(job_id, uid, outcome, reason, outcome_at, unhealthy_at, disconnected_at, sent_at)
)
UPDATE job_targets t SET
  state = coalesce(o.outcome, t.state),
  reason = CASE WHEN o.outcome IS NULL OR o.reason = '' THEN t.reason ELSE o.reason END,
  finished_at = CASE WHEN o.outcome IS NULL THEN t.finished_at ELSE ${msTimestamp('o.outcome_at')} END,
  unhealthy_at = coalesce(t.unhealthy_at, ${msTimestamp('o.unhealthy_at')}),
  disconnected_at = coalesce(t.disconnected_at, ${msTimestamp('o.disconnected_at')}),
  sent_at = coalesce(t.sent_at, ${msTimestamp('o.sent_at')})
FROM o WHERE t.job_id = o.job_id AND t.instance_uid = o.uid AND t.state = 'in_flight'
RETURNING CASE WHEN o.outcome IS NULL AND o.unhealthy_at IS NULL AND o.disconnected_at IS NULL THEN NULL
  ELSE t.job_id::text END`,
    values: [
      col((x) => x.jobId),
      col((x) => x.uid),
      col((x) => x.outcome),
      col((x) => x.reason),
      col((x) => x.outcomeAt),
      col((x) => x.unhealthyAt),
      col((x) => x.disconnectedAt),
      col((x) => x.sentAt),
    ],
  };
}
