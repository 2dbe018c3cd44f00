// The binding statements for many ids at once (pgBindBatch.ts), as pure functions returning
// { text, values }: each takes one array per column (unnest), so a batch of any size is one statement
// of a fixed text (prepared once by the server's plan cache, no parameter-count limit). Rows come back
// in bindingColumns' order (credentialSql.ts), the first of takeSql's behind a flag.

import type { InstanceUid } from '../../events/ids.ts';
import type { AgentCredential } from '../../projections/identity/agentCredential.ts';
import type { Sql } from '../database/sql.ts';
import { certificateColumns } from './credentialSql.ts';

export interface BindAskRow {
  readonly uid: InstanceUid;
  readonly credential: AgentCredential;
  /** Unix ms. */
  readonly at: number;
}

export interface HolderChange extends BindAskRow {
  /** The holder read: the row changes only while it is still this one, unrevoked. */
  readonly from: AgentCredential;
  /** The id moves to a certificate issued for it (bound_at is now), else the holder's serial is kept. */
  readonly takeover: boolean;
}

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;
const prefixed = (table: string) =>
  `${table}.instance_uid, ${table}.kind, ${table}.name, ${table}.serial, ${ms(`${table}.bound_at`)} AS bound_ms, ${ms(`${table}.revoked_at`)} AS revoked_ms, ${table}.revoked_by`;

/**
 * Takes every asked id no row holds for its credential (INSERT ... ON CONFLICT DO NOTHING), and reads
 * the rows of the others, in one statement: `true, row` for an id taken now, `false, row` for a row
 * that was there before the statement began. An id in neither (a row committed by another replica
 * meanwhile) is asked again. The ids of one batch are distinct.
 */
export function takeSql(asks: readonly BindAskRow[]): Sql {
  return {
    text: `WITH asked AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[])
    AS a(instance_uid, kind, name, serial, at)
), taken AS (
  INSERT INTO agent_credentials AS c (instance_uid, kind, name, serial, bound_at)
  SELECT instance_uid, kind, name, serial, to_timestamp(at / 1000.0) FROM asked
  ON CONFLICT (instance_uid) DO NOTHING
  RETURNING ${prefixed('c')}
)
SELECT true, * FROM taken
UNION ALL
SELECT false, ${prefixed('c')} FROM agent_credentials AS c
WHERE c.instance_uid IN (SELECT instance_uid FROM asked)`,
    values: [
      asks.map((a) => a.uid),
      asks.map((a) => a.credential.kind),
      asks.map((a) => a.credential.name),
      asks.map((a) => a.credential.serial ?? null),
      asks.map((a) => a.at),
    ],
  };
}

/**
 * Records each holder's latest serial, or hands each id to a certificate issued for it, but only
 * while its row is still the one read (holder `from`, not revoked): an id whose row changed meanwhile
 * returns no row, and is decided again.
 */
export function changeHoldersSql(changes: readonly HolderChange[]): Sql {
  return {
    text: `UPDATE agent_credentials AS c SET kind = u.kind, name = u.name, serial = u.serial,
  bound_at = CASE WHEN u.takeover THEN to_timestamp(u.at / 1000.0) ELSE c.bound_at END
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::bool[])
  AS u(instance_uid, from_kind, from_name, kind, name, serial, at, takeover)
WHERE c.instance_uid = u.instance_uid AND c.kind = u.from_kind AND c.name = u.from_name
  AND c.revoked_at IS NULL
RETURNING ${prefixed('c')}`,
    values: [
      changes.map((c) => c.uid),
      changes.map((c) => c.from.kind),
      changes.map((c) => c.from.name),
      changes.map((c) => c.credential.kind),
      changes.map((c) => c.credential.name),
      changes.map((c) => c.credential.serial ?? null),
      changes.map((c) => c.at),
      changes.map((c) => c.takeover),
    ],
  };
}

/** The records of these certificate serials, whichever ids they name. */
export function certificatesBySerialSql(serials: readonly string[]): Sql {
  return {
    text: `SELECT ${certificateColumns} FROM agent_certificates WHERE serial = ANY($1::text[])`,
    values: [serials],
  };
}
