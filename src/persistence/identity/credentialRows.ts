// Rows of agent_credentials and agent_certificates, read in the column order of bindingColumns and
// certificateColumns (credentialSql.ts; bindBatchSql.ts reads the same order), as the identity types.

import type pg from 'pg';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentCredential, CredentialKind } from '../../projections/identity/agentCredential.ts';
import type { Binding, IssuedCertificate } from '../../projections/identity/credentialStore.ts';
import type { Sql } from '../database/sql.ts';

export const rowsOf = async (client: pg.ClientBase | pg.Pool, statement: Sql) =>
  (await client.query<unknown[]>({ text: statement.text, values: statement.values, rowMode: 'array' })).rows;

export function bindingFromRow(row: readonly unknown[]): Binding {
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

export function certificateFromRow(row: readonly unknown[]): IssuedCertificate {
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
