// The job record (SPEC "Job"; docs/jobs.md) and the two ports the API uses: JobStore records a planned
// job (POST /api/jobs, as SPEC has it), JobControl reads jobs and makes them act. Types only: the
// persistence layer implements the ports, the web layer uses them.

import type { JobStatus, OperatorCommand } from './jobLifecycle.ts';
import type { TargetCandidate } from './resolveTargets.ts';
import type { Acknowledged, TrippedGate } from './rolloutPlan.ts';

export type TargetMode = 'snapshot' | 'live';
export type TargetState =
  'pending' | 'in_flight' | 'succeeded' | 'failed' | 'skipped' | 'rolled_back' | 'cancelled';
export const targetStates: readonly TargetState[] = [
  'pending',
  'in_flight',
  'succeeded',
  'failed',
  'skipped',
  'rolled_back',
  'cancelled',
];

export interface NewJob {
  readonly filter: string;
  readonly action: string;
  /** `{}` when the request omits it; stored verbatim. */
  readonly action_config: Readonly<Record<string, unknown>>;
  readonly submitted_by: string;
}

/** The gate that paused a job, and (some of) the agents that tripped it. */
export interface JobGate extends TrippedGate {
  readonly agents: readonly string[];
}

export interface Job extends NewJob {
  readonly id: string;
  readonly status: JobStatus;
  readonly target_mode: TargetMode | null;
  /** ISO 8601 UTC, like every time below (null until it happens). */
  readonly created_at: string;
  readonly armed_at: string | null;
  /** When the job starts running (set at arming; now when not asked for). */
  readonly dispatch_at: string | null;
  readonly cancelled_at: string | null;
  readonly started_at?: string | null;
  readonly paused_at?: string | null;
  readonly finished_at?: string | null;
  /** Restart: batches sent. Rollout: stages reached. */
  readonly stage?: number;
  readonly gate?: JobGate | null;
  /** Rollout: the gate counts the last resume accepted (absent before any resume). */
  readonly acknowledged?: Acknowledged;
  /** Rollout: the config's current revision when armed. */
  readonly from_revision?: number | null;
  readonly target_counts?: Readonly<Partial<Record<TargetState, number>>>;
}

export interface JobStore {
  /** Inserts a planned job; rejects on a backend error (the API answers 500). */
  create(job: NewJob): Promise<Job>;
}

export interface JobTarget {
  readonly instance_uid: string;
  readonly state: TargetState;
  readonly stage: number | null;
  readonly reason: string;
  readonly dispatched_at: string | null;
  readonly sent_at: string | null;
  readonly finished_at: string | null;
  readonly unhealthy_at: string | null;
  readonly disconnected_at: string | null;
}

export interface JobEvent {
  readonly at: string;
  readonly actor: string;
  readonly kind: string;
  readonly from_status: string | null;
  readonly to_status: string | null;
  readonly reason: string;
  readonly details: unknown;
}

export type { TargetCandidate };

/** A job's targets counted by the stage they were released in (null: never released) and state. */
export interface StageStateCount {
  readonly stage: number | null;
  readonly state: TargetState;
  readonly count: number;
}

export interface ArmRequest {
  readonly actor: string;
  readonly targetMode: TargetMode;
  /** Unix ms; the job starts running then. */
  readonly dispatchAt: number;
  readonly targets: readonly TargetCandidate[];
  /** Rollout: the config's current revision now. */
  readonly fromRevision: number | null;
}

export type ActOutcome =
  | { readonly ok: true; readonly job: Job }
  | { readonly ok: false; readonly status: 404 | 409; readonly error: string; readonly job?: Job };

export interface JobControl {
  list(status?: JobStatus): Promise<Job[]>;
  get(id: string): Promise<Job | undefined>;
  targets(id: string, page: { limit: number; offset: number }, state?: TargetState): Promise<JobTarget[]>;
  events(id: string): Promise<JobEvent[]>;
  /** The job's targets counted by the stage they were released in and their state. */
  targetsByStage(id: string): Promise<StageStateCount[]>;
  /** The jobs that touched an agent, newest first, with the agent's target record. */
  jobsOfAgent(uid: string): Promise<{ job: Job; target: JobTarget }[]>;
  /** Active rollout jobs of a config (at most one may run at a time). */
  activeRollouts(config: string): Promise<Job[]>;
  arm(id: string, request: ArmRequest): Promise<ActOutcome>;
  /** pause, resume, cancel, rollback, promote by an operator (who and why kept in the job's events). */
  act(id: string, command: OperatorCommand, actor: string, reason: string): Promise<ActOutcome>;
  /** Job statuses and target states, for the metrics. */
  counts(): Promise<{
    jobs: Partial<Record<JobStatus, number>>;
    targets: { action: string; state: string; n: number }[];
  }>;
}
