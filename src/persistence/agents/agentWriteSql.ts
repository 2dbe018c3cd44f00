// The write statements (SPEC durability rules 11-17), as pure functions returning { text, values }.
// Every batch passes one array per column through UNNEST, so the text is the same for 1 or 100,000
// agents. Times travel as Unix ms (float8) and become timestamptz here. No statement touches a
// column only bookkeeping reads (migrations/00019-drop-change-positions.sql): an update that changes
// no indexed column stays heap-only.

import type { AgentColumns, ConfigColumns, SessionColumns } from './agentColumns.ts';
import { arrayLiteral } from '../database/arrayLiteral.ts';
import type { Eviction } from '../../projections/changeTracker/changeTracker.ts';
import type { Sql } from '../database/sql.ts';

const ts = (expr: string) => `to_timestamp(${expr} / 1000.0)`;

/**
 * Guarded upsert (rules 11, 13): a stored row changes only when its updated_at is older than the
 * incoming one (the agent's last_seen). first_seen is written on insert only. A row that applies
 * clears evicted_at, so an agent that comes back after an eviction is visible again. Returns the
 * uids whose row changed: only those get their session and configs written (rule 12). `heldBy`
 * names the writing replica in held_by (heldRows.ts); null for writers that hold no agents.
 */
export function upsertAgentsSql(c: AgentColumns, heldBy: string | null = null): Sql {
  return {
    text: `INSERT INTO agents AS a (instance_uid, first_seen, last_seen, healthy, health_error, health_status,
  health_start_time, health_status_time, health_reported, health_components, capabilities, identifying,
  non_identifying, missing_attributes, reserved_attribute_conflicts, compliance_updated_at, packages,
  remote_config_hash, remote_config_status, remote_config_error, evicted_at, updated_at, held_by)
SELECT t.uid, ${ts('t.first_seen')}, ${ts('t.last_seen')}, t.healthy, t.health_error, t.health_status,
  ${ts('t.health_start_time')}, ${ts('t.health_status_time')}, t.health_reported, t.health_components,
  t.capabilities, t.identifying, t.non_identifying, t.missing::text[], t.conflicts::text[],
  ${ts('t.compliance_updated_at')}, t.packages, t.rc_hash, t.rc_status, t.rc_error, NULL,
  ${ts('t.last_seen')}, $21::text
FROM UNNEST($1::text[], $2::float8[], $3::float8[], $4::bool[], $5::text[], $6::text[], $7::float8[],
  $8::float8[], $9::bool[], $10::jsonb[], $11::numeric[], $12::jsonb[], $13::jsonb[], $14::text[],
  $15::text[], $16::float8[], $17::jsonb[], $18::text[], $19::text[], $20::text[])
  AS t(uid, first_seen, last_seen, healthy, health_error, health_status, health_start_time,
  health_status_time, health_reported, health_components, capabilities, identifying, non_identifying,
  missing, conflicts, compliance_updated_at, packages, rc_hash, rc_status, rc_error)
ON CONFLICT (instance_uid) DO UPDATE SET
  last_seen = EXCLUDED.last_seen, healthy = EXCLUDED.healthy, health_error = EXCLUDED.health_error,
  health_status = EXCLUDED.health_status, health_start_time = EXCLUDED.health_start_time,
  health_status_time = EXCLUDED.health_status_time, health_reported = EXCLUDED.health_reported,
  health_components = EXCLUDED.health_components, capabilities = EXCLUDED.capabilities,
  identifying = EXCLUDED.identifying, non_identifying = EXCLUDED.non_identifying,
  missing_attributes = EXCLUDED.missing_attributes,
  reserved_attribute_conflicts = EXCLUDED.reserved_attribute_conflicts,
  compliance_updated_at = EXCLUDED.compliance_updated_at, packages = EXCLUDED.packages,
  remote_config_hash = EXCLUDED.remote_config_hash, remote_config_status = EXCLUDED.remote_config_status,
  remote_config_error = EXCLUDED.remote_config_error, evicted_at = NULL, updated_at = EXCLUDED.updated_at,
  held_by = EXCLUDED.held_by
WHERE a.updated_at < EXCLUDED.updated_at
RETURNING a.instance_uid`,
    values: [
      ...[
        c.uid,
        c.firstSeen,
        c.lastSeen,
        c.healthy,
        c.healthError,
        c.healthStatus,
        c.healthStartTime,
        c.healthStatusTime,
        c.healthReported,
        c.healthComponents,
        c.capabilities,
        c.identifying,
        c.nonIdentifying,
        c.missingAttributes,
        c.reservedAttributeConflicts,
        c.complianceUpdatedAt,
        c.packages,
        c.remoteConfigHash,
        c.remoteConfigStatus,
        c.remoteConfigError,
      ].map(arrayLiteral),
      heldBy,
    ],
  };
}

/**
 * Session upsert, for the agents whose row exists. Guarded by (last_seen, connection_changed_at,
 * alive_at), compared in that order: a replica holding a copy of the agent last seen earlier never
 * overwrites a session written by a sibling that heard from it later, whatever its connection or
 * alive times say (a sweep finds a disconnect up to the disconnect threshold late); for the same
 * last_seen the later connection change wins, so a disconnect, which keeps last_seen (rule 14),
 * reaches the row; for the same connection, the later alive time (a pong of the socket holding a
 * quiet agent) wins, so only the copy that wrote the row moves it forward. Equal triples say nothing
 * new and change nothing.
 */
export function upsertSessionsSql(c: SessionColumns, { agentsKnownToExist = false } = {}): Sql {
  // In the flush the agent rows were just written in the same transaction: no join needed, and the
  // changed uids are already known from the agent upsert (5,000 rows a chunk not sent back).
  const join = agentsKnownToExist ? '' : '\nJOIN agents a ON a.instance_uid = t.uid';
  const returning = agentsKnownToExist ? '' : '\nRETURNING s.instance_uid';
  return {
    text: `INSERT INTO agent_session AS s (instance_uid, connected, remote_addr, tls_subject, via_gateway, transport,
  description_reported, sequence_num, connection_changed_at, updated_at, alive_at)
SELECT t.uid, t.connected, t.remote_addr, t.tls_subject, t.via_gateway, t.transport, t.description_reported,
  t.sequence_num, ${ts('t.connection_changed_at')}, ${ts('t.updated_at')}, ${ts('t.alive_at')}
FROM UNNEST($1::text[], $2::bool[], $3::text[], $4::text[], $5::bool[], $6::text[], $7::bool[],
  $8::numeric[], $9::float8[], $10::float8[], $11::float8[])
  AS t(uid, connected, remote_addr, tls_subject, via_gateway, transport, description_reported,
  sequence_num, connection_changed_at, updated_at, alive_at)${join}
ON CONFLICT (instance_uid) DO UPDATE SET
  connected = EXCLUDED.connected, remote_addr = EXCLUDED.remote_addr, tls_subject = EXCLUDED.tls_subject,
  via_gateway = EXCLUDED.via_gateway, transport = EXCLUDED.transport,
  description_reported = EXCLUDED.description_reported, sequence_num = EXCLUDED.sequence_num,
  connection_changed_at = EXCLUDED.connection_changed_at, updated_at = EXCLUDED.updated_at,
  alive_at = EXCLUDED.alive_at
WHERE (s.updated_at, s.connection_changed_at, s.alive_at)
  < (EXCLUDED.updated_at, EXCLUDED.connection_changed_at, EXCLUDED.alive_at)${returning}`,
    values: [
      c.uid,
      c.connected,
      c.remoteAddr,
      c.tlsSubject,
      c.viaGateway,
      c.transport,
      c.descriptionReported,
      c.sequenceNum,
      c.connectionChangedAt,
      c.updatedAt,
      c.aliveAt,
    ].map(arrayLiteral),
  };
}

/**
 * Effective configs are replaced wholesale (rule 15), in two statements: first the files of the
 * saved agents that they no longer report are deleted...
 *
 * The stored files are found one agent at a time through the primary key (the LATERAL lookup, kept
 * from being flattened by OFFSET 0) and deleted by row address, so the plan never depends on the
 * table's statistics: `instance_uid = ANY(5,000 uids)` read the whole table on every chunk whenever
 * it had not been analyzed yet (a fresh or fast-growing table), 20 full scans per 100,000 agents.
 * The rows cannot move meanwhile: every writer of an agent's config rows first holds its agents row.
 */
export function deleteStaleConfigsSql(uids: readonly string[], c: ConfigColumns): Sql {
  return {
    text: `DELETE FROM agent_effective_config c
WHERE c.ctid = ANY(ARRAY(
  SELECT e.ctid FROM UNNEST($1::text[]) AS s(uid),
    LATERAL (SELECT x.ctid, x.instance_uid, x.filename FROM agent_effective_config x
      WHERE x.instance_uid = s.uid OFFSET 0) AS e
  WHERE (e.instance_uid, e.filename) NOT IN
    (SELECT t.uid, t.filename FROM UNNEST($2::text[], $3::text[]) AS t(uid, filename))))`,
    values: [uids, c.uid, c.filename].map(arrayLiteral),
  };
}

/**
 * ...then every current file is written, one row per file. An upsert rather than delete-and-insert:
 * the rows end up the same, but an unchanged file name is an in-place (HOT) update that neither
 * touches the index nor re-checks the foreign key. A file whose body and content type are already
 * stored is not written at all (its updated_at stays the save that last changed it): most saves are
 * health or session changes of an agent whose config did not change, and rewriting its 1 KiB rows
 * was most of their write volume (docs/scaling.md).
 */
export function upsertConfigsSql(c: ConfigColumns): Sql {
  return {
    text: `INSERT INTO agent_effective_config AS c (instance_uid, filename, body, content_type, updated_at)
SELECT t.uid, t.filename, t.body, t.content_type, ${ts('t.updated_at')}
FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[]) AS t(uid, filename, body, content_type, updated_at)
ON CONFLICT (instance_uid, filename) DO UPDATE SET
  body = EXCLUDED.body, content_type = EXCLUDED.content_type, updated_at = EXCLUDED.updated_at
WHERE (c.body, c.content_type) IS DISTINCT FROM (EXCLUDED.body, EXCLUDED.content_type)`,
    values: [c.uid, c.filename, c.body, c.contentType, c.updatedAt].map(arrayLiteral),
  };
}

/**
 * Soft delete (rule 16): sets evicted_at once and never moves it, and only where the stored
 * updated_at is not newer than the evicted copy's last_seen, so a replica evicting its stale copy
 * never hides an agent a sibling still serves.
 */
export function softDeleteSql(evictions: readonly Eviction[]): Sql {
  return {
    text: `UPDATE agents a SET evicted_at = ${ts('e.at')}
FROM UNNEST($1::text[], $2::float8[], $3::float8[]) AS e(uid, last_seen, at)
WHERE a.instance_uid = e.uid AND a.evicted_at IS NULL AND a.updated_at <= ${ts('e.last_seen')}
RETURNING a.instance_uid`,
    values: [evictions.map((e) => e.uid), evictions.map((e) => e.lastSeen), evictions.map((e) => e.at)].map(
      arrayLiteral,
    ),
  };
}

/** Purge (rule 17): soft-deleted rows older than the retention; session and configs cascade. */
export function purgeSql(nowMs: number, retentionMs: number): Sql {
  return {
    text: `DELETE FROM agents WHERE evicted_at IS NOT NULL AND evicted_at < ${ts('$1::float8')}`,
    values: [nowMs - retentionMs],
  };
}
