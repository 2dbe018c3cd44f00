// Job rows (array mode, in the column order of jobSql.ts) → records.

import type { JobStatus } from '../../projections/jobs/jobLifecycle.ts';
import type {
  Job,
  JobEvent,
  JobGate,
  JobTarget,
  TargetMode,
  TargetState,
} from '../../projections/jobs/jobStore.ts';
import type { Acknowledged } from '../../projections/jobs/rolloutPlan.ts';

type Row = readonly unknown[];
export const jobWidth = 20;

const iso = (v: unknown): string | null =>
  v === null ? null : new Date(Math.round(v as number)).toISOString();
const json = <T>(v: unknown): T => JSON.parse(v as string) as T;

export function jobFromRow(row: Row): Job {
  return {
    id: row[0] as string,
    filter: row[1] as string,
    action: row[2] as string,
    action_config: json<Record<string, unknown>>(row[3]),
    status: row[4] as JobStatus,
    target_mode: row[5] as TargetMode | null,
    submitted_by: row[6] as string,
    created_at: iso(row[7])!,
    armed_at: iso(row[8]),
    dispatch_at: iso(row[9]),
    cancelled_at: iso(row[10]),
    started_at: iso(row[11]),
    paused_at: iso(row[12]),
    finished_at: iso(row[13]),
    stage: row[14] as number,
    gate: row[16] === null ? null : json<JobGate>(row[16]),
    from_revision: row[17] as number | null,
    target_counts: json<Partial<Record<TargetState, number>>>(row[18]),
    ...(row[19] !== null && { acknowledged: json<Acknowledged>(row[19]) }),
  };
}

/** stage_at of a job row, in Unix ms (0 when unset). */
export const stageAtOf = (row: Row): number => Math.round((row[15] as number | null) ?? 0);

export function targetFromRow(row: Row, at = 0): JobTarget {
  return {
    instance_uid: row[at] as string,
    state: row[at + 1] as TargetState,
    stage: row[at + 2] as number | null,
    reason: row[at + 3] as string,
    dispatched_at: iso(row[at + 4]),
    sent_at: iso(row[at + 5]),
    finished_at: iso(row[at + 6]),
    unhealthy_at: iso(row[at + 7]),
    disconnected_at: iso(row[at + 8]),
  };
}

export function eventFromRow(row: Row): JobEvent {
  return {
    at: iso(row[0])!,
    actor: row[1] as string,
    kind: row[2] as string,
    from_status: row[3] as string | null,
    to_status: row[4] as string | null,
    reason: row[5] as string,
    details: row[6] === null ? null : json<unknown>(row[6]),
  };
}
