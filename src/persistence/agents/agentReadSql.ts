// The read statements (SPEC durability rules 3-5, 10). The list mirror's reads never load effective
// configs, packages or component health (the summary does not show them). Column order is the
// contract with agentFromRow.ts (rows are read in array mode for speed).

import type { Sql } from '../database/sql.ts';

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

/** Columns shared by list and detail, in the order listRow reads them. */
const summaryColumns = `a.instance_uid, ${ms('a.first_seen')}, ${ms('a.last_seen')}, a.healthy, a.health_error,
  a.health_status, ${ms('a.health_start_time')}, ${ms('a.health_status_time')}, a.health_reported,
  a.capabilities::text, a.identifying::text, a.non_identifying::text, a.missing_attributes,
  a.reserved_attribute_conflicts, ${ms('a.compliance_updated_at')}, s.connected, s.remote_addr,
  s.tls_subject, s.via_gateway, s.transport, s.description_reported, s.sequence_num::text,
  ${ms('s.connection_changed_at')}, ${ms('s.updated_at')}, a.remote_config_hash, a.remote_config_status,
  a.remote_config_error, ${ms('s.alive_at')}`;

/** How many summary columns there are: what follows them starts at this index. */
export const summaryWidth = 28;

/** The last column of every mirror row: whether the agent is soft-deleted. */
const mirrorColumns = `${summaryColumns}, a.evicted_at IS NOT NULL`;

/**
 * The mirror's watermark, read before the rows it covers: the oldest transaction still running.
 * Every transaction below it has committed or aborted, so a later read already sees all it wrote;
 * anything at or past it may still commit, and the next read (from this watermark on) will see it.
 */
export function watermarkSql(): Sql {
  return { text: 'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS watermark', values: [] };
}

/**
 * The mirror's first read: every live stored agent (soft-deleted rows excluded in SQL), in
 * instance_uid order, so the mirror's tree is filled from one end.
 */
export function listAgentsSql(): Sql {
  return {
    text: `SELECT ${mirrorColumns}
FROM agents a LEFT JOIN agent_session s ON s.instance_uid = a.instance_uid
WHERE a.evicted_at IS NULL
ORDER BY a.instance_uid`,
    values: [],
  };
}

/**
 * The mirror's later reads: every agent whose row or session row a transaction at or past
 * `watermark` wrote (the change_xid indexes find them), soft-deleted ones included so the mirror
 * drops them.
 */
export function changedAgentsSql(watermark: string): Sql {
  return {
    text: `WITH changed AS (
  SELECT instance_uid FROM agents WHERE change_xid >= $1::xid8
  UNION
  SELECT instance_uid FROM agent_session WHERE change_xid >= $1::xid8
)
SELECT ${mirrorColumns}
FROM changed c JOIN agents a ON a.instance_uid = c.instance_uid
LEFT JOIN agent_session s ON s.instance_uid = a.instance_uid`,
    values: [watermark],
  };
}

/** One live agent with packages, component health and its effective config files. */
export function getAgentSql(uid: string): Sql {
  return {
    text: `SELECT ${summaryColumns}, a.health_components::text, a.packages::text,
  (SELECT json_object_agg(c.filename, json_build_array(c.body, c.content_type))::text
     FROM agent_effective_config c WHERE c.instance_uid = a.instance_uid)
FROM agents a LEFT JOIN agent_session s ON s.instance_uid = a.instance_uid
WHERE a.instance_uid = $1 AND a.evicted_at IS NULL`,
    values: [uid],
  };
}
