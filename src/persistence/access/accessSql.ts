// The statements of the UI's sessions, first-run codes and audit log (migrations/00015-ui-sessions.sql,
// 00016-audit-log.sql), as pure functions returning { text, values }. Times travel as Unix ms.

import type { AuditEntryInput, AuditFilter } from '../../projections/access/auditLog.ts';
import type { SignInSession } from '../../projections/access/signInSession.ts';
import type { Sql } from '../database/sql.ts';

const ts = (param: string) => `to_timestamp(${param}::float8 / 1000.0)`;
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

export const sessionColumns = `id_hash, origin, subject, display_name, role, ${ms('created_at')}, ${ms('last_seen_at')}, ${ms('expires_at')}`;

export function insertSessionSql(s: SignInSession): Sql {
  return {
    text: `INSERT INTO ui_sessions (id_hash, origin, subject, display_name, role, created_at, last_seen_at, expires_at)
VALUES ($1, $2, $3, $4, $5, ${ts('$6')}, ${ts('$7')}, ${ts('$8')})`,
    values: [s.idHash, s.origin, s.subject, s.displayName, s.role, s.createdAt, s.lastSeenAt, s.expiresAt],
  };
}

export const findSessionSql = (idHash: string): Sql => ({
  text: `SELECT ${sessionColumns} FROM ui_sessions WHERE id_hash = $1`,
  values: [idHash],
});

/** Moves last_seen_at forward only (two replicas touching at once keep the later). */
export const touchSessionSql = (idHash: string, at: number): Sql => ({
  text: `UPDATE ui_sessions SET last_seen_at = ${ts('$2')} WHERE id_hash = $1 AND last_seen_at < ${ts('$2')}`,
  values: [idHash, at],
});

export const endSessionSql = (idHash: string): Sql => ({
  text: 'DELETE FROM ui_sessions WHERE id_hash = $1',
  values: [idHash],
});

export const purgeSessionsSql = (now: number, idleBefore: number): Sql => ({
  text: `WITH gone AS (DELETE FROM ui_sessions WHERE expires_at <= ${ts('$1')} OR last_seen_at <= ${ts('$2')} RETURNING 1),
codes AS (DELETE FROM ui_sign_in_codes WHERE expires_at <= ${ts('$1')})
SELECT count(*)::int FROM gone`,
  values: [now, idleBefore],
});

export const insertCodeSql = (codeHash: string, expiresAt: number): Sql => ({
  text: `INSERT INTO ui_sign_in_codes (code_hash, expires_at) VALUES ($1, ${ts('$2')})`,
  values: [codeHash, expiresAt],
});

/** Uses the code once: one row back the first time while it is good, none ever after. */
export const useCodeSql = (codeHash: string, now: number): Sql => ({
  text: `UPDATE ui_sign_in_codes SET used_at = ${ts('$2')}
WHERE code_hash = $1 AND used_at IS NULL AND expires_at > ${ts('$2')} RETURNING 1`,
  values: [codeHash, now],
});

export const auditColumns = `id, ${ms('at')}, actor_kind, actor_id, actor_name, action, target_kind, target, via, detail`;

export function insertAuditSql(e: AuditEntryInput): Sql {
  return {
    text: `INSERT INTO audit_log (at, actor_kind, actor_id, actor_name, action, target_kind, target, via, detail)
VALUES (${ts('$1')}, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${auditColumns}`,
    values: [e.at, e.actor.kind, e.actor.id, e.actor.name, e.action, e.targetKind, e.target, e.via, e.detail],
  };
}

/** The same filter as matchesAudit, newest first. */
export function listAuditSql(f: AuditFilter): Sql {
  const values: unknown[] = [];
  const where: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (f.who !== undefined && f.who !== '') {
    const p = param(`%${f.who.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(lower(actor_id) LIKE ${p} OR lower(actor_name) LIKE ${p})`);
  }
  if (f.action !== undefined) where.push(`action = ${param(f.action)}`);
  if (f.target !== undefined && f.target !== '') where.push(`target = ${param(f.target)}`);
  if (f.since !== undefined) where.push(`at >= ${ts(param(f.since))}`);
  if (f.until !== undefined) where.push(`at < ${ts(param(f.until))}`);
  if (f.before !== undefined) where.push(`id < ${param(f.before)}`);
  const limit = param(f.limit ?? 100);
  return {
    text: `SELECT ${auditColumns} FROM audit_log${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${limit}`,
    values,
  };
}
