-- Which replica last wrote an agent's row (its notifier name, unique per process), so a fleet list
-- leaves out the stored copies of the agents the asking replica holds with an index instead of
-- sending every held id with every list (docs/persistence.md "Fleet lists"). A replica holding
-- 100,000 agents sent 3.6 MB of ids twice per list and PostgreSQL read every one of their rows.
-- The index serves `held_by <> me` as two range scans and the NULLs; it also covers an unfiltered
-- count as an index-only scan. A row's held_by changes only when another replica writes it, so
-- the updates of the agent's own replica stay heap-only.
ALTER TABLE agents ADD COLUMN held_by text;
CREATE INDEX agents_held_by_idx ON agents (held_by, instance_uid) WHERE evicted_at IS NULL;
