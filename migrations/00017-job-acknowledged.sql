-- A rollout's gate counts accepted by the operator's last resume (docs/jobs.md "Gates"): failed,
-- unhealthy and disconnected targets, as {"failed": n, "unhealthy": n, "disconnected": n}. The gates
-- count only the targets beyond these, so a resume after a trip goes on past the failures it saw.
-- NULL until the first resume (nothing accepted).
ALTER TABLE jobs ADD COLUMN acknowledged jsonb;
