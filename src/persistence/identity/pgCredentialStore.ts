// The credential store on PostgreSQL (migrations/00011-agent-credentials.sql, 00012). bind() reads
// the presented certificate's record, refuses what the binding rule refuses whatever the id's row,
// then takes the id with INSERT ... ON CONFLICT DO NOTHING; when a row exists, it reads it and decides with the same
// pure rule as the in-memory store (decideBind), making any change conditional on the row it read, so
// replicas racing for one id agree: the first committed credential holds it. Concurrent binds go
// together, many ids to a statement (pgBindBatch.ts). revoke() marks the id
// and its certificates in one transaction and notifies svc_agent_revoked, so every replica closes the
// agent's live connection (revocationListener.ts).

import type pg from 'pg';
import type { CredentialStore } from '../../projections/identity/credentialStore.ts';
import { notifySql } from '../database/notifications.ts';
import { inTransaction } from '../database/transaction.ts';
import * as sql from './credentialSql.ts';
import { bindingFromRow, certificateFromRow, rowsOf } from './credentialRows.ts';
import { createBindBatch } from './pgBindBatch.ts';

export interface PgCredentialStoreOptions {
  /** Names this replica in revocation notices, so it does not announce its own twice. */
  readonly replica: string;
  /** Told the number of ids of every binding batch sent (pgBindBatch.ts). */
  readonly onBindBatch?: (ids: number) => void;
}

/** Distinct ids bound by one statement at most. */
const maxBatch = 1000;
/**
 * Batches in flight: one. It shares the write pool with the flush (which keeps one connection free
 * for everything else); a second batch measured no faster on two cores.
 */
const maxInFlight = 1;

export function createPgCredentialStore(pool: pg.Pool, options: PgCredentialStoreOptions): CredentialStore {
  const bind = createBindBatch(pool, {
    maxBatch,
    maxInFlight,
    maxAttempts: 3,
    onBatch: options.onBindBatch,
  });
  return {
    bind,
    async binding(uid) {
      const [row] = await rowsOf(pool, sql.bindingSql(uid));
      return row === undefined ? undefined : bindingFromRow(row);
    },
    async recordIssued(certificate) {
      await pool.query(sql.insertCertificateSql(certificate));
    },
    async certificates(uid) {
      return (await rowsOf(pool, sql.certificatesSql(uid))).map(certificateFromRow);
    },
    revoke: (uid, actor, at) =>
      inTransaction(pool, async (client) => {
        const [row] = await rowsOf(client, sql.revokeBindingSql(uid, actor, at));
        if (row === undefined) {
          const [kept] = await rowsOf(client, sql.bindingSql(uid));
          const first = bindingFromRow(kept!);
          return {
            changed: false,
            revokedAt: first.revokedAt!,
            revokedBy: first.revokedBy ?? '',
            certificates: 0,
          };
        }
        const certificates = (await client.query(sql.revokeCertificatesSql(uid, at))).rowCount ?? 0;
        const payload = JSON.stringify({ uid, by: actor, replica: options.replica });
        await client.query(notifySql(sql.revocationsChannel, payload));
        return { changed: true, revokedAt: row[0] as number, revokedBy: row[1] as string, certificates };
      }),
  };
}
