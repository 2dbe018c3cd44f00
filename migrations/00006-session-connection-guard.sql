-- The session row's guard (docs/persistence.md "Session rows"): a session write applies when its
-- (updated_at, connection_changed_at) is later than the stored pair, so a disconnect, which keeps
-- last_seen (rule 14), still reaches the row, and a copy last seen earlier never overwrites a newer
-- connection. The pair is compared as a row value, which needs both columns set.
UPDATE agent_session SET connection_changed_at = updated_at WHERE connection_changed_at IS NULL;
ALTER TABLE agent_session ALTER COLUMN connection_changed_at SET NOT NULL;
