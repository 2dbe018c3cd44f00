-- At most one rollout of a config is active (armed, running or paused) at a time (docs/jobs.md):
-- held by the database, so two replicas arming rollouts of one config at the same moment cannot
-- both win (the loser's arm answers 409). Before the index, rollouts that already overlap (armed
-- concurrently before this rule) are resolved: the earliest armed keeps going, the others are
-- cancelled, and each cancellation is recorded as a job event saying why.
WITH ranked AS (
  SELECT id, status, row_number() OVER (
    PARTITION BY action_config->>'config' ORDER BY armed_at NULLS LAST, created_at, id
  ) AS n
  FROM jobs
  WHERE action = 'config_rollout' AND status IN ('armed', 'running', 'paused')
), cancelled AS (
  UPDATE jobs j SET status = 'cancelled', cancelled_at = now(), updated_at = now()
  FROM ranked r WHERE j.id = r.id AND r.n > 1
  RETURNING j.id, r.status AS from_status
), closed AS (
  -- As a cancel does: targets not reached end here; reached ones keep their revision.
  UPDATE job_targets t SET state = 'cancelled', reason = 'job cancelled', finished_at = now()
  FROM cancelled c WHERE t.job_id = c.id AND t.state = 'pending'
)
INSERT INTO job_events (job_id, at, actor, kind, from_status, to_status, reason)
SELECT id, now(), 'service', 'cancel', from_status, 'cancelled',
  'another rollout of the same config was already active (migration 00010)'
FROM cancelled;

CREATE UNIQUE INDEX jobs_one_active_rollout_idx ON jobs ((action_config->>'config'))
  WHERE action = 'config_rollout' AND status IN ('armed', 'running', 'paused');
