// The job record (SPEC "Job") and the contract POST /api/jobs creates jobs through. Jobs are only
// recorded, never dispatched.

export interface NewJob {
  readonly filter: string;
  readonly action: string;
  /** `{}` when the request omits it; stored verbatim. */
  readonly action_config: Readonly<Record<string, unknown>>;
  readonly submitted_by: string;
}

export interface Job extends NewJob {
  readonly id: string;
  readonly status: 'planned';
  readonly target_mode: null;
  /** ISO 8601 UTC. */
  readonly created_at: string;
  readonly armed_at: null;
  readonly dispatch_at: null;
  readonly cancelled_at: null;
}

export interface JobStore {
  /** Inserts a planned job; rejects on a backend error (the API answers 500). */
  create(job: NewJob): Promise<Job>;
}
