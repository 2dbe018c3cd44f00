-- Sessions of people signed in to the UI (docs/security.md "Sessions"), shared by every replica so
-- that each honours a session and a sign-out on one ends it on all. A session is kept by the SHA-256
-- of its cookie value, never the value. First-run codes (the admin link printed at startup) are kept
-- the same way and can be used once.
CREATE TABLE ui_sessions (
  id_hash text COLLATE "C" PRIMARY KEY,
  origin text NOT NULL CHECK (origin IN ('oidc', 'first_run')),
  subject text NOT NULL,
  display_name text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'admin')),
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX ui_sessions_expires_at ON ui_sessions (expires_at);

CREATE TABLE ui_sign_in_codes (
  code_hash text COLLATE "C" PRIMARY KEY,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
