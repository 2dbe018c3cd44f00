-- Change positions for the list mirror (docs/persistence.md "The list mirror"). Every statement that
-- writes an agents or agent_session row stamps change_xid with the id of its transaction
-- (pg_current_xact_id(); the default covers inserts, the write statements set it on update and soft
-- delete). A replica reads the rows with change_xid at or past its watermark, the oldest transaction
-- still running when it last read (pg_snapshot_xmin(pg_current_snapshot())): transaction ids are
-- handed out in one order and committed in another, and the watermark is the position below which
-- nothing can still commit. xid8 is 64 bits wide and never wraps around.
-- The indexes make those reads cheap at any fleet size; they cost the updates their heap-only (HOT)
-- path, since the stamped column is indexed.
ALTER TABLE agents ADD COLUMN change_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE agent_session ADD COLUMN change_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX agents_change_xid_idx ON agents (change_xid);
CREATE INDEX agent_session_change_xid_idx ON agent_session (change_xid);
