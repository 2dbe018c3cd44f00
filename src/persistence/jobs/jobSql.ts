// The job statements (docs/jobs.md), as pure functions returning { text, values }. Times travel as
// Unix ms; rows are read in array mode in the column order of jobColumns / targetColumns
// (jobRows.ts maps them).

import type { JobStatus } from '../../projections/jobs/jobLifecycle.ts';
import { msTimestamp, type Sql } from '../database/sql.ts';
import { statusListSql } from './statusListSql.ts';
import { lateSql, latenessValues, type Lateness } from './lateSql.ts';
import type { TargetCandidate, TargetState } from '../../projections/jobs/jobStore.ts';

export const jobsChannel = 'svc_jobs';

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

export const jobColumns = `j.id, j.filter, j.action, j.action_config::text, j.status, j.target_mode, j.submitted_by,
  ${ms('j.created_at')}, ${ms('j.armed_at')}, ${ms('j.dispatch_at')}, ${ms('j.cancelled_at')}, ${ms('j.started_at')},
  ${ms('j.paused_at')}, ${ms('j.finished_at')}, j.stage, ${ms('j.stage_at')}, j.gate::text, j.from_revision,
  j.target_counts::text, j.acknowledged::text`;

export const targetColumns = `t.instance_uid, t.state, t.stage, t.reason, ${ms('t.dispatched_at')}, ${ms('t.sent_at')},
  ${ms('t.finished_at')}, ${ms('t.unhealthy_at')}, ${ms('t.disconnected_at')}`;

export function jobSql(id: string, { forUpdate = false } = {}): Sql {
  return {
    text: `SELECT ${jobColumns} FROM jobs j WHERE j.id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    values: [id],
  };
}

export function listJobsSql(status: JobStatus | undefined, limit: number): Sql {
  return {
    text: `SELECT ${jobColumns} FROM jobs j ${status === undefined ? '' : 'WHERE j.status = $2'}
ORDER BY j.created_at DESC, j.id LIMIT $1`,
    values: status === undefined ? [limit] : [limit, status],
  };
}

/** The columns a transition sets, besides status. */
export interface JobChanges {
  readonly armed_at?: number;
  readonly dispatch_at?: number;
  readonly started_at?: number;
  readonly paused_at?: number | null;
  readonly finished_at?: number;
  readonly cancelled_at?: number;
  readonly target_mode?: string;
  readonly stage?: number;
  readonly stage_at?: number;
  readonly gate?: string | null;
  /** JSON: the gate counts a resume accepted (jobs.acknowledged). */
  readonly acknowledged?: string;
  readonly from_revision?: number | null;
}

const timeColumns = new Set([
  'armed_at',
  'dispatch_at',
  'started_at',
  'paused_at',
  'finished_at',
  'cancelled_at',
  'stage_at',
]);

const jsonColumns = new Set(['gate', 'acknowledged']);

export function updateJobSql(id: string, status: JobStatus, changes: JobChanges, at: number): Sql {
  const values: unknown[] = [id, status, at];
  const sets = ['status = $2', `updated_at = ${msTimestamp('$3')}`];
  for (const [column, value] of Object.entries(changes)) {
    values.push(value);
    const p = `$${values.length}`;
    sets.push(
      jsonColumns.has(column)
        ? `${column} = ${p}::jsonb`
        : timeColumns.has(column) && value !== null
          ? `${column} = ${msTimestamp(p)}`
          : `${column} = ${p}`,
    );
  }
  return { text: `UPDATE jobs SET ${sets.join(', ')} WHERE id = $1`, values };
}

export function insertEventSql(e: {
  jobId: string;
  at: number;
  actor: string;
  kind: string;
  from: string | null;
  to: string | null;
  reason: string;
  details?: unknown;
}): Sql {
  return {
    text: `INSERT INTO job_events (job_id, at, actor, kind, from_status, to_status, reason, details)
VALUES ($1, ${msTimestamp('$2')}, $3, $4, $5, $6, $7, $8::jsonb)`,
    values: [
      e.jobId,
      e.at,
      e.actor,
      e.kind,
      e.from,
      e.to,
      e.reason,
      e.details === undefined ? null : JSON.stringify(e.details),
    ],
  };
}

export function eventsSql(jobId: string): Sql {
  return {
    text: `SELECT ${ms('at')}, actor, kind, from_status, to_status, reason, details::text
FROM job_events WHERE job_id = $1 ORDER BY id`,
    values: [jobId],
  };
}

/** Targets found at arming (or joining a live job): eligible ones pending, the others skipped. */
export function insertTargetsSql(jobId: string, targets: readonly TargetCandidate[], at: number): Sql {
  return {
    text: `INSERT INTO job_targets (job_id, instance_uid, state, reason, finished_at)
SELECT $1, t.uid, CASE WHEN t.eligible THEN 'pending' ELSE 'skipped' END, t.reason,
  CASE WHEN t.eligible THEN NULL ELSE ${msTimestamp('$5')} END
FROM UNNEST($2::text[], $3::bool[], $4::text[]) AS t(uid, eligible, reason)
ON CONFLICT (job_id, instance_uid) DO NOTHING`,
    values: [
      jobId,
      targets.map((t) => t.uid),
      targets.map((t) => t.eligible),
      targets.map((t) => t.reason),
      at,
    ],
  };
}

export function targetsSql(jobId: string, limit: number, offset: number, state?: TargetState): Sql {
  return {
    text: `SELECT ${targetColumns} FROM job_targets t WHERE t.job_id = $1${state === undefined ? '' : ' AND t.state = $4'}
ORDER BY t.instance_uid LIMIT $2 OFFSET $3`,
    values: state === undefined ? [jobId, limit, offset] : [jobId, limit, offset, state],
  };
}

/**
 * Per state, the gate counts among targets reached (in flight or finished), when the last target
 * finished (a skipped one never did: it is skipped when found, maybe mid-job for a live one), and
 * the targets in flight that are `late` (lateSql.ts; none when unset).
 */
export function targetCountsSql(jobId: string, late?: Lateness): Sql {
  return {
    text: `SELECT t.state, count(*)::int,
  count(*) FILTER (WHERE t.unhealthy_at IS NOT NULL)::int,
  count(*) FILTER (WHERE t.disconnected_at IS NOT NULL AND t.state <> 'succeeded')::int,
  coalesce(${ms("max(t.finished_at) FILTER (WHERE t.state <> 'skipped')")}, 0),
  ${late === undefined ? '0' : `count(*) FILTER (WHERE t.state = 'in_flight' AND ${lateSql(2)})::int`}
FROM job_targets t WHERE t.job_id = $1 GROUP BY t.state`,
    values: late === undefined ? [jobId] : [jobId, ...latenessValues(late)],
  };
}

export function saveCountsSql(jobId: string, counts: Record<string, number>): Sql {
  return {
    text: 'UPDATE jobs SET target_counts = $2::jsonb WHERE id = $1',
    values: [jobId, JSON.stringify(counts)],
  };
}

export function jobsOfAgentSql(uid: string): Sql {
  return {
    text: `SELECT ${jobColumns}, ${targetColumns} FROM job_targets t JOIN jobs j ON j.id = t.job_id
WHERE t.instance_uid = $1 ORDER BY j.created_at DESC LIMIT 50`,
    values: [uid],
  };
}

export function activeRolloutsSql(config: string): Sql {
  return {
    text: `SELECT ${jobColumns} FROM jobs j WHERE j.action = 'config_rollout'
  AND j.status IN ${statusListSql('holdsConfig')} AND j.action_config->>'config' = $1`,
    values: [config],
  };
}

/** Ends the targets that no longer get anything: pending (never released) and, when given, more. */
export function closeTargetsSql(
  jobId: string,
  from: readonly TargetState[],
  to: TargetState,
  reason: string,
  at: number,
): Sql {
  return {
    text: `UPDATE job_targets SET state = $3, reason = $4, finished_at = coalesce(finished_at, ${msTimestamp('$5')})
WHERE job_id = $1 AND state = ANY($2::text[])`,
    values: [jobId, from, to, reason, at],
  };
}

export function statusCountsSql(): Sql {
  return { text: 'SELECT status, count(*)::int FROM jobs GROUP BY status', values: [] };
}

/** Target states per action, from the counts the stepper keeps (cheap at scrape time). */
export function targetCountsByActionSql(): Sql {
  return {
    text: `SELECT j.action, c.key, sum(c.value::int)::int FROM jobs j, jsonb_each_text(j.target_counts) c
GROUP BY j.action, c.key`,
    values: [],
  };
}
