-- Fleet lists read the tables at request time (00018); nothing reads change_xid any more. Its
-- indexes made every write to agents and agent_session a non-heap-only update (a new entry in both
-- indexes of the table per write): the session refresh at rest, the bulk of all writes, pays that
-- for every connected agent every keepalive. Dropped with their columns, so those updates stay on
-- their page (fillfactor 70) when no other indexed column changes.
DROP INDEX IF EXISTS agents_change_xid_idx;
DROP INDEX IF EXISTS agent_session_change_xid_idx;
ALTER TABLE agents DROP COLUMN IF EXISTS change_xid;
ALTER TABLE agent_session DROP COLUMN IF EXISTS change_xid;
