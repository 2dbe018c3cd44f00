-- Who did what (docs/security.md "Audit log"): one row per write, appended, never changed. The
-- trigger refuses UPDATE and DELETE, so not even a bug in the service can rewrite history.
CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL,
  actor_kind text NOT NULL CHECK (actor_kind IN ('session', 'token', 'certificate', 'anonymous')),
  actor_id text NOT NULL,
  actor_name text NOT NULL,
  action text NOT NULL,
  target_kind text NOT NULL CHECK (target_kind IN ('config', 'job', 'agent')),
  target text NOT NULL,
  via text NOT NULL CHECK (via IN ('api', 'ui')),
  detail text NOT NULL
);

CREATE INDEX audit_log_target ON audit_log (target, id);
CREATE INDEX audit_log_at ON audit_log (at);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END
$$;

CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
