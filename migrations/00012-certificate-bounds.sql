-- What an agent certificate was issued to and what its enrolling credential was allowed (issue 29;
-- docs/security.md "The binding rule"). A certificate moves an id only from the credential it was
-- issued to (issued_kind, issued_name), and carries that credential's bounds to every connection that
-- presents it: the token's selector and whether it may declare a gateway.
ALTER TABLE agent_certificates
  ADD COLUMN issued_kind text CHECK (issued_kind IN ('token', 'certificate', 'agent_certificate')),
  ADD COLUMN issued_name text,
  ADD COLUMN selector text,
  ADD COLUMN gateway boolean NOT NULL DEFAULT false;

-- Records made before: issued_by is 'KIND:NAME' or 'KIND:NAME serial HEX'. Their selector is not
-- known (it was never recorded): such a certificate carries none (docs/security.md says to revoke
-- certificates issued before this version to tokens that had a selector).
UPDATE agent_certificates SET
  issued_kind = split_part(issued_by, ':', 1),
  issued_name = regexp_replace(substr(issued_by, strpos(issued_by, ':') + 1), ' serial [0-9a-f]+$', '')
WHERE split_part(issued_by, ':', 1) IN ('token', 'certificate', 'agent_certificate');
