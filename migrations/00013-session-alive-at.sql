-- The session row's alive time (docs/persistence.md "Session rows"): the latest time the replica
-- holding the agent knew it alive, its last message or, for an agent held by an open WebSocket of
-- that replica, the socket's last answer to a ping. updated_at stays the agent's last_seen (rule 11);
-- a sibling counts the agent connected while the later of the two is within the disconnect
-- threshold (rule 10), so a quiet agent whose socket answers pings is not shown gone elsewhere.
-- It is the last member of the session guard: it can only decide between writes of one copy of the
-- agent (same last_seen and connection change), never let an earlier copy win.
ALTER TABLE agent_session ADD COLUMN alive_at timestamptz;
UPDATE agent_session SET alive_at = updated_at;
ALTER TABLE agent_session ALTER COLUMN alive_at SET NOT NULL;
