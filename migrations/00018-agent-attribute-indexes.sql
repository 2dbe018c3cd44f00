-- Fleet lists are answered by the database (docs/persistence.md "Fleet lists"): an attribute
-- equality (`key=value`) is a containment test on the agent's attribute documents, which these GIN
-- indexes answer without reading every row. jsonb_path_ops indexes key-value pairs only (smaller
-- than the default operator class, and containment is all the lists ask). Partial on live rows,
-- as lists never show soft-deleted agents.
CREATE INDEX agents_identifying_gin_idx ON agents USING gin (identifying jsonb_path_ops)
  WHERE evicted_at IS NULL;
CREATE INDEX agents_non_identifying_gin_idx ON agents USING gin (non_identifying jsonb_path_ops)
  WHERE evicted_at IS NULL;
-- The live agents in instance_uid order: an unfiltered count is an index-only scan of it (after
-- vacuum) instead of a pass over the wide agent rows.
CREATE INDEX agents_live_uid_idx ON agents (instance_uid) WHERE evicted_at IS NULL;
