-- Agent credentials (docs/security.md "Agent credentials"). An instance id belongs to the first
-- credential that presents it: the row is taken with INSERT ... ON CONFLICT DO NOTHING, so replicas
-- racing for one id agree on its holder. A revoked id stays refused (revoked_at set) until an
-- operator deletes its row. Certificates the agent CA (agents.ca.*) issued are kept with the
-- credential that asked for them; revoking an id revokes them all. Neither table refers to agents:
-- a binding and its revocation outlive the purge of the agent's row.
CREATE TABLE agent_credentials (
  instance_uid text COLLATE "C" PRIMARY KEY,
  -- token | certificate | agent_certificate; null when the id was revoked before any credential.
  kind text CHECK (kind IN ('token', 'certificate', 'agent_certificate')),
  -- The token's name, or the certificate's SPIFFE id (else its subject). Never a token.
  name text,
  -- The latest certificate serial presented (lowercase hex); null for tokens.
  serial text,
  bound_at timestamptz NOT NULL,
  revoked_at timestamptz,
  -- Who revoked: an API token's name, a SPIFFE id, or 'anonymous'.
  revoked_by text,
  CHECK ((kind IS NULL) = (name IS NULL)),
  CHECK (kind IS NOT NULL OR revoked_at IS NOT NULL)
);

CREATE INDEX agent_credentials_revoked_at ON agent_credentials (revoked_at) WHERE revoked_at IS NOT NULL;

CREATE TABLE agent_certificates (
  serial text COLLATE "C" PRIMARY KEY,
  instance_uid text COLLATE "C" NOT NULL,
  not_before timestamptz NOT NULL,
  not_after timestamptz NOT NULL,
  issued_at timestamptz NOT NULL,
  -- The credential the agent authenticated with when it asked (e.g. 'token:prod').
  issued_by text NOT NULL,
  revoked_at timestamptz
);

CREATE INDEX agent_certificates_instance_uid ON agent_certificates (instance_uid);
