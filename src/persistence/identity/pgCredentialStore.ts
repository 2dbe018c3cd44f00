// The credential store on PostgreSQL (migrations/00011-agent-credentials.sql, 00012). bind() reads
// the presented certificate's record, refuses what the binding rule refuses whatever the id's row,
// then takes the id with INSERT ... ON CONFLICT DO NOTHING; when a row exists, it reads it and decides with the same
// pure rule as the in-memory store (decideBind), making any change conditional on the row it read, so
// replicas racing for one id agree: the first committed credential holds it. revoke() marks the id
// and its certificates in one transaction and notifies svc_agent_revoked, so every replica closes the
// agent's live connection (revocationListener.ts).

import type pg from 'pg';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentCredential, CredentialKind } from '../../projections/identity/agentCredential.ts';
import type {
  BindOutcome,
  Binding,
  CredentialStore,
  IssuedCertificate,
} from '../../projections/identity/credentialStore.ts';
import { decideBind } from '../../projections/identity/decideBind.ts';
import { notifySql } from '../database/notifications.ts';
import type { Sql } from '../database/sql.ts';
import { inTransaction } from '../database/transaction.ts';
import * as sql from './credentialSql.ts';

const rowsOf = async (client: pg.ClientBase | pg.Pool, statement: Sql) =>
  (await client.query<unknown[]>({ text: statement.text, values: statement.values, rowMode: 'array' })).rows;

function bindingFromRow(row: readonly unknown[]): Binding {
  const [uid, kind, name, serial, boundAt, revokedAt, revokedBy] = row;
  const credential: AgentCredential | null =
    kind === null
      ? null
      : {
          kind: kind as CredentialKind,
          name: name as string,
          ...(serial === null ? {} : { serial: serial as string }),
        };
  return {
    uid: uid as InstanceUid,
    credential,
    boundAt: boundAt as number,
    revokedAt: revokedAt as number | null,
    revokedBy: revokedBy as string | null,
  };
}

function certificateFromRow(row: readonly unknown[]): IssuedCertificate {
  const [serial, uid, notBefore, notAfter, issuedAt, issuedBy, revokedAt, kind, name, selector, gateway] =
    row;
  return {
    serial: serial as string,
    uid: uid as InstanceUid,
    notBefore: notBefore as number,
    notAfter: notAfter as number,
    issuedAt: issuedAt as number,
    issuedBy: issuedBy as string,
    revokedAt: revokedAt as number | null,
    issuedTo: kind === null ? null : { kind: kind as CredentialKind, name: name as string },
    bounds: { selector: selector as string | null, gateway: gateway as boolean },
  };
}

export interface PgCredentialStoreOptions {
  /** Names this replica in revocation notices, so it does not announce its own twice. */
  readonly replica: string;
}

/** A lost race (the row changed between read and update) is decided again; more is a fault. */
const maxAttempts = 3;

export function createPgCredentialStore(pool: pg.Pool, options: PgCredentialStoreOptions): CredentialStore {
  /** The record of the certificate presented, if any (read before the id is taken: it may forbid it). */
  async function recordOf(credential: AgentCredential): Promise<IssuedCertificate | undefined> {
    if (credential.serial === undefined) return undefined;
    const [record] = await rowsOf(pool, sql.certificateSql(credential.serial));
    return record === undefined ? undefined : certificateFromRow(record);
  }

  async function bindOnce(
    uid: InstanceUid,
    credential: AgentCredential,
    certificate: IssuedCertificate | undefined,
    at: number,
  ): Promise<BindOutcome | undefined> {
    // What refuses the credential whatever the id's row (another id named, no record, revoked serial)
    // refuses it before the INSERT could take a fresh id for it.
    const unbound = decideBind({ uid, credential, existing: undefined, certificate });
    if (unbound.action === 'refuse') return unbound.outcome;
    const [inserted] = await rowsOf(pool, sql.insertBindingSql(uid, credential, at));
    if (inserted !== undefined) return { outcome: 'bound', binding: bindingFromRow(inserted) };
    const [row] = await rowsOf(pool, sql.bindingSql(uid));
    if (row === undefined) return undefined; // deleted meanwhile: try the insert again
    const existing = bindingFromRow(row);
    const decision = decideBind({ uid, credential, existing, certificate });
    if (decision.action === 'refuse') return decision.outcome;
    // Not with a row read ('insert'), never without a credential ('open'): decide again.
    if (decision.action === 'insert' || decision.action === 'open') return undefined;
    const takeover = decision.action === 'takeover';
    const update = sql.updateHolderSql(uid, existing.credential!, credential, at, takeover);
    const [updated] = await rowsOf(pool, update);
    return updated === undefined ? undefined : { outcome: 'bound', binding: bindingFromRow(updated) };
  }

  return {
    async bind(uid, credential, at) {
      const certificate = await recordOf(credential);
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const outcome = await bindOnce(uid, credential, certificate, at);
        if (outcome !== undefined) return outcome;
      }
      throw new Error(`binding of ${uid} kept changing under ${maxAttempts} attempts`);
    },
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
