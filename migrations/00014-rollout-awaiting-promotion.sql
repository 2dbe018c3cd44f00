-- A rollout that ended with failed targets waits for an operator's decision as `awaiting_promotion`
-- (docs/jobs.md "Finishing"): it still holds its config, so no other rollout of the config may be
-- armed until it is promoted, rolled back or cancelled. The one-active-rollout index (00010) counts
-- that status too (the list is jobLifecycle.ts's holdsConfig statuses).
DROP INDEX jobs_one_active_rollout_idx;
CREATE UNIQUE INDEX jobs_one_active_rollout_idx ON jobs ((action_config->>'config'))
  WHERE action = 'config_rollout' AND status IN ('armed', 'running', 'paused', 'awaiting_promotion');
