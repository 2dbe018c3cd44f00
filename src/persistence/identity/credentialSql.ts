// The agent-credential statements (migrations/00011-agent-credentials.sql, 00012-certificate-bounds.sql), as pure functions
// returning { text, values }. Times travel as Unix ms. Binding rows are read in the column order of
// bindingColumns, certificate rows in that of certificateColumns (credentialRows.ts maps them).
// Binding itself goes many ids at a time: bindBatchSql.ts.

import type { InstanceUid } from '../../events/ids.ts';
import type { NewCertificate } from '../../projections/identity/credentialStore.ts';
import type { Sql } from '../database/sql.ts';

/** NOTIFY channel of revocations; payload JSON {uid, by, replica}. */
export const revocationsChannel = 'svc_agent_revoked';

const ts = (param: string) => `to_timestamp(${param}::float8 / 1000.0)`;
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

export const bindingColumns = `instance_uid, kind, name, serial, ${ms('bound_at')}, ${ms('revoked_at')}, revoked_by`;
export const certificateColumns = `serial, instance_uid, ${ms('not_before')}, ${ms('not_after')}, ${ms('issued_at')}, issued_by, ${ms('revoked_at')}, issued_kind, issued_name, selector, gateway`;

export function bindingSql(uid: InstanceUid): Sql {
  return { text: `SELECT ${bindingColumns} FROM agent_credentials WHERE instance_uid = $1`, values: [uid] };
}

export function insertCertificateSql(c: NewCertificate): Sql {
  return {
    text: `INSERT INTO agent_certificates (serial, instance_uid, not_before, not_after, issued_at, issued_by,
  issued_kind, issued_name, selector, gateway)
VALUES ($1, $2, ${ts('$3')}, ${ts('$4')}, ${ts('$5')}, $6, $7, $8, $9, $10)`,
    values: [
      c.serial,
      c.uid,
      c.notBefore,
      c.notAfter,
      c.issuedAt,
      c.issuedBy,
      c.issuedTo?.kind ?? null,
      c.issuedTo?.name ?? null,
      c.bounds?.selector ?? null,
      c.bounds?.gateway ?? false,
    ],
  };
}

export function certificatesSql(uid: InstanceUid): Sql {
  return {
    text: `SELECT ${certificateColumns} FROM agent_certificates WHERE instance_uid = $1 ORDER BY issued_at DESC, serial`,
    values: [uid],
  };
}

/**
 * Revokes the id: makes a revoked row when there is none, marks an unrevoked one. Returns the row
 * with `changed` (false: it was revoked before, and keeps its first revocation).
 */
export function revokeBindingSql(uid: InstanceUid, actor: string, at: number): Sql {
  return {
    text: `INSERT INTO agent_credentials AS c (instance_uid, bound_at, revoked_at, revoked_by)
VALUES ($1, ${ts('$3')}, ${ts('$3')}, $2)
ON CONFLICT (instance_uid) DO UPDATE SET revoked_at = EXCLUDED.revoked_at, revoked_by = EXCLUDED.revoked_by
WHERE c.revoked_at IS NULL
RETURNING ${ms('revoked_at')}, revoked_by`,
    values: [uid, actor, at],
  };
}

export function revokeCertificatesSql(uid: InstanceUid, at: number): Sql {
  return {
    text: `UPDATE agent_certificates SET revoked_at = ${ts('$2')} WHERE instance_uid = $1 AND revoked_at IS NULL`,
    values: [uid, at],
  };
}

/** Ids revoked at or after `since` (a replica catching up after its listening connection was down). */
export function revokedSinceSql(since: number): Sql {
  return {
    text: `SELECT instance_uid, revoked_by FROM agent_credentials WHERE revoked_at >= ${ts('$1')} ORDER BY revoked_at`,
    values: [since],
  };
}
