-- What each agent reports of its remote config (remote_config_status), stored like every other
-- reported field: the hash it last received (hex, empty when none), its state, and the error message
-- of a failed apply. remote_config_status is null until the agent reports one.
ALTER TABLE agents
  ADD COLUMN remote_config_hash text NOT NULL DEFAULT '',
  ADD COLUMN remote_config_status text
    CHECK (remote_config_status IN ('unset', 'applied', 'applying', 'failed')),
  ADD COLUMN remote_config_error text NOT NULL DEFAULT '';
