-- The agent record (SPEC "Agent"). instance_uid uses the "C" collation so ORDER BY instance_uid is
-- the same code-unit order the registry's index uses, and the read path can merge without re-sorting.
-- fillfactor 70 (here and on the session and config tables) leaves room on each page, so the
-- flush's updates stay heap-only (HOT) and do not touch the primary key index.
-- capabilities is an unsigned 64-bit bitmask: numeric(20,0) holds every value exactly (bigint cannot
-- hold values at or above 2^63).
CREATE TABLE agents (
  instance_uid text COLLATE "C" PRIMARY KEY,
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  healthy boolean NOT NULL DEFAULT false,
  health_error text NOT NULL DEFAULT '',
  health_status text NOT NULL DEFAULT '',
  health_start_time timestamptz,
  health_status_time timestamptz,
  health_reported boolean NOT NULL DEFAULT false,
  health_components jsonb,
  capabilities numeric(20, 0) NOT NULL DEFAULT 0
    CHECK (capabilities >= 0 AND capabilities <= 18446744073709551615),
  identifying jsonb NOT NULL DEFAULT '{}',
  non_identifying jsonb NOT NULL DEFAULT '{}',
  missing_attributes text[] NOT NULL DEFAULT '{}',
  reserved_attribute_conflicts text[] NOT NULL DEFAULT '{}',
  compliance_updated_at timestamptz,
  evicted_at timestamptz,
  packages jsonb,
  -- Event time of the last applied save (the agent's last_seen): the write-safety guard (rule 11).
  updated_at timestamptz NOT NULL
) WITH (fillfactor = 70);

-- The purge (rule 17) looks only at soft-deleted rows.
CREATE INDEX agents_evicted_at_idx ON agents (evicted_at) WHERE evicted_at IS NOT NULL;
