-- The job lifecycle (docs/jobs.md): planned → armed → running → succeeded / failed, paused and
-- resumed, cancelled before the end. Every transition sets its time and is kept in job_events
-- (who, when, why). job_targets holds each target's state: what an agent should receive is stored
-- here, so a replica that holds it (or gets it after a reconnect) delivers the same thing.
ALTER TABLE jobs
  ADD COLUMN started_at timestamptz,
  ADD COLUMN paused_at timestamptz,
  ADD COLUMN finished_at timestamptz,
  -- Restart: batches sent so far. Rollout: stages reached so far.
  ADD COLUMN stage integer NOT NULL DEFAULT 0,
  ADD COLUMN stage_at timestamptz,
  -- The gate that paused the job: {gate, limit, count, agents}.
  ADD COLUMN gate jsonb,
  -- Rollout: the config's current revision when the job was armed (what rollback returns to).
  ADD COLUMN from_revision integer,
  -- Targets by state, kept by the stepper for lists and metrics.
  ADD COLUMN target_counts jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN updated_at timestamptz;

CREATE INDEX jobs_status_idx ON jobs (status);

CREATE TABLE job_events (
  id bigserial PRIMARY KEY,
  job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  -- Who: an API token's name, a SPIFFE id, 'anonymous', or 'service' for the service's own steps.
  actor text NOT NULL,
  kind text NOT NULL,
  from_status text,
  to_status text,
  reason text NOT NULL DEFAULT '',
  details jsonb
);

CREATE INDEX job_events_job_idx ON job_events (job_id, id);

CREATE TABLE job_targets (
  job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  instance_uid text COLLATE "C" NOT NULL,
  -- pending → in_flight → succeeded | failed; skipped (cannot take the action); rolled_back; cancelled.
  state text NOT NULL CHECK (state IN ('pending', 'in_flight', 'succeeded', 'failed', 'skipped', 'rolled_back', 'cancelled')),
  stage integer,
  reason text NOT NULL DEFAULT '',
  -- When the target's command or revision was released to it.
  dispatched_at timestamptz,
  -- Restart: when and by which replica the command was sent, and the health start time then (ns).
  sent_at timestamptz,
  sent_by text,
  baseline_start_nanos numeric(20, 0),
  finished_at timestamptz,
  -- Rollout gates: turned unhealthy, or lost, after receiving the revision.
  unhealthy_at timestamptz,
  disconnected_at timestamptz,
  PRIMARY KEY (job_id, instance_uid)
);

-- What replicas poll: targets released and not finished.
CREATE INDEX job_targets_in_flight_idx ON job_targets (job_id) WHERE state = 'in_flight';
CREATE INDEX job_targets_agent_idx ON job_targets (instance_uid);
