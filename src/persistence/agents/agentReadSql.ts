// The read statements (SPEC durability rules 3-5, 10). List reads (agentListSql.ts) never load
// effective configs, packages or component health (the summary does not show them). Column order is the
// contract with agentFromRow.ts (rows are read in array mode for speed).

import type { Sql } from '../database/sql.ts';

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

/** Columns shared by list and detail, in the order listRow reads them. */
export const summaryColumns = `a.instance_uid, ${ms('a.first_seen')}, ${ms('a.last_seen')}, a.healthy, a.health_error,
  a.health_status, ${ms('a.health_start_time')}, ${ms('a.health_status_time')}, a.health_reported,
  a.capabilities::text, a.identifying::text, a.non_identifying::text, a.missing_attributes,
  a.reserved_attribute_conflicts, ${ms('a.compliance_updated_at')}, s.connected, s.remote_addr,
  s.tls_subject, s.via_gateway, s.transport, s.description_reported, s.sequence_num::text,
  ${ms('s.connection_changed_at')}, ${ms('s.updated_at')}, a.remote_config_hash, a.remote_config_status,
  a.remote_config_error, ${ms('s.alive_at')}`;

/** How many summary columns there are: what follows them starts at this index. */
export const summaryWidth = 28;

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
