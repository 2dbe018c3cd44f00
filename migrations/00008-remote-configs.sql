-- Remote configs (docs/remote-config.md). A config is a name with immutable revisions; one revision is
-- current, the one agents receive (null while none is: created as a draft, or deleted). A draft is a
-- revision newer than the current one. DELETE marks the config deleted and keeps its history; creating
-- the name again continues its revision numbers. Writes notify channel svc_configs (payload: the name)
-- so every replica reloads at once; replicas also reconcile on a timer.
CREATE TABLE remote_configs (
  name text COLLATE "C" PRIMARY KEY,
  current_revision integer,
  latest_revision integer NOT NULL,
  deleted_at timestamptz,
  deleted_by text,
  updated_at timestamptz NOT NULL,
  CHECK (current_revision IS NULL OR current_revision <= latest_revision)
);

CREATE TABLE remote_config_revisions (
  name text COLLATE "C" NOT NULL REFERENCES remote_configs (name) ON DELETE CASCADE,
  revision integer NOT NULL,
  selector text NOT NULL,
  body text NOT NULL,
  content_type text NOT NULL,
  enabled boolean NOT NULL,
  -- SHA-256 of the body's UTF-8 bytes, hex.
  body_hash text NOT NULL,
  -- Who wrote it: an API token's name, a SPIFFE id, or 'anonymous'.
  author text NOT NULL,
  created_at timestamptz NOT NULL,
  draft boolean NOT NULL,
  restored_from integer,
  PRIMARY KEY (name, revision)
);
