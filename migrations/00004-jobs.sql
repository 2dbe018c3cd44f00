-- Jobs (SPEC "Job"): recorded by POST /api/jobs, never dispatched.
CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  filter text NOT NULL,
  action text NOT NULL,
  action_config jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL,
  target_mode text,
  submitted_by text NOT NULL,
  created_at timestamptz NOT NULL,
  armed_at timestamptz,
  dispatch_at timestamptz,
  cancelled_at timestamptz
);

CREATE INDEX jobs_created_at_idx ON jobs (created_at);
