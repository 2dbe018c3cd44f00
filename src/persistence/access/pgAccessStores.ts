// The UI's sessions, first-run codes and audit log on PostgreSQL (accessSql.ts), shared by every
// replica: a session opened on one is honoured by all, a sign-out on one ends it on all, and the
// audit log is one history whatever replica took the write.

import type pg from 'pg';
import type { AuditAction, AuditEntry, AuditLog } from '../../projections/access/auditLog.ts';
import type { SessionStore, SignInSession } from '../../projections/access/signInSession.ts';
import type { Sql } from '../database/sql.ts';
import * as sql from './accessSql.ts';

const rowsOf = async (pool: pg.Pool, statement: Sql) =>
  (await pool.query<unknown[]>({ text: statement.text, values: statement.values, rowMode: 'array' })).rows;

function sessionFromRow(row: readonly unknown[]): SignInSession {
  const [idHash, origin, subject, displayName, role, createdAt, lastSeenAt, expiresAt] = row;
  return {
    idHash: idHash as string,
    origin: origin as SignInSession['origin'],
    subject: subject as string,
    displayName: displayName as string,
    role: role as SignInSession['role'],
    createdAt: createdAt as number,
    lastSeenAt: lastSeenAt as number,
    expiresAt: expiresAt as number,
  };
}

/** Lookups on the read pool (every request of a signed-in browser); changes on the write pool. */
export function createPgSessionStore(pool: pg.Pool, readPool: pg.Pool = pool): SessionStore {
  return {
    async create(session) {
      await rowsOf(pool, sql.insertSessionSql(session));
    },
    async find(idHash) {
      const [row] = await rowsOf(readPool, sql.findSessionSql(idHash));
      return row === undefined ? undefined : sessionFromRow(row);
    },
    async touch(idHash, at) {
      await rowsOf(pool, sql.touchSessionSql(idHash, at));
    },
    async end(idHash) {
      await rowsOf(pool, sql.endSessionSql(idHash));
    },
    async purge(now, idleBefore) {
      const [row] = await rowsOf(pool, sql.purgeSessionsSql(now, idleBefore));
      return (row?.[0] as number | undefined) ?? 0;
    },
    async issueCode(codeHash, expiresAt) {
      await rowsOf(pool, sql.insertCodeSql(codeHash, expiresAt));
    },
    async useCode(codeHash, now) {
      return (await rowsOf(pool, sql.useCodeSql(codeHash, now))).length === 1;
    },
  };
}

function auditFromRow(row: readonly unknown[]): AuditEntry {
  const [id, at, kind, actorId, actorName, action, targetKind, target, via, detail] = row;
  return {
    id: Number(id),
    at: at as number,
    actor: { kind: kind as AuditEntry['actor']['kind'], id: actorId as string, name: actorName as string },
    action: action as AuditAction,
    targetKind: targetKind as AuditEntry['targetKind'],
    target: target as string,
    via: via as AuditEntry['via'],
    detail: detail as string,
  };
}

export function createPgAuditLog(pool: pg.Pool, readPool: pg.Pool = pool): AuditLog {
  return {
    async append(entry) {
      const [row] = await rowsOf(pool, sql.insertAuditSql(entry));
      return auditFromRow(row!);
    },
    async list(filter) {
      return (await rowsOf(readPool, sql.listAuditSql(filter))).map(auditFromRow);
    },
  };
}
