-- Effective configuration, one row per file (rule 15), replaced wholesale on each applied save and
-- removed with its agent.
CREATE TABLE agent_effective_config (
  instance_uid text COLLATE "C" NOT NULL REFERENCES agents (instance_uid) ON DELETE CASCADE,
  filename text NOT NULL,
  body text NOT NULL,
  content_type text NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (instance_uid, filename)
) WITH (fillfactor = 70);
