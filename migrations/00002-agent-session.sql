-- The session record (SPEC "Session record"), one per agent, removed with it. updated_at is the
-- agent's last_seen when written; a sibling counts the agent connected only while it is fresh
-- (rule 10).
CREATE TABLE agent_session (
  instance_uid text COLLATE "C" PRIMARY KEY REFERENCES agents (instance_uid) ON DELETE CASCADE,
  connected boolean NOT NULL,
  remote_addr text NOT NULL DEFAULT '',
  tls_subject text,
  via_gateway boolean NOT NULL DEFAULT false,
  transport text NOT NULL CHECK (transport IN ('ws', 'http')),
  description_reported boolean NOT NULL DEFAULT false,
  sequence_num numeric(20, 0) NOT NULL DEFAULT 0
    CHECK (sequence_num >= 0 AND sequence_num <= 18446744073709551615),
  connection_changed_at timestamptz,
  updated_at timestamptz NOT NULL
) WITH (fillfactor = 70);
