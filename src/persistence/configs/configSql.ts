// The remote-config statements, as pure functions returning { text, values }. Times travel as Unix
// ms. Revision rows are read in the column order of revisionColumns (configRows.ts maps them).

import type { ConfigRevisionRecord } from '../../events/configData.ts';
import type { Sql } from '../database/sql.ts';

export const configsChannel = 'svc_configs';

const ts = (param: string) => `to_timestamp(${param}::float8 / 1000.0)`;
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

export const revisionColumns = (t: string) =>
  `${t}.name, ${t}.revision, ${t}.selector, ${t}.body, ${t}.content_type, ${t}.enabled, ${t}.body_hash,
  ${t}.author, ${ms(`${t}.created_at`)}, ${t}.draft, ${t}.restored_from`;

/** Creates the config, or revives a deleted name with its next revision. No row: the name is taken. */
export function createConfigSql(name: string, draft: boolean, at: number): Sql {
  return {
    text: `INSERT INTO remote_configs AS c (name, current_revision, latest_revision, updated_at)
VALUES ($1, CASE WHEN $2 THEN NULL ELSE 1 END, 1, ${ts('$3')})
ON CONFLICT (name) DO UPDATE SET
  latest_revision = c.latest_revision + 1,
  current_revision = CASE WHEN $2 THEN NULL ELSE c.latest_revision + 1 END,
  deleted_at = NULL, deleted_by = NULL, updated_at = EXCLUDED.updated_at
WHERE c.deleted_at IS NOT NULL
RETURNING latest_revision`,
    values: [name, draft, at],
  };
}

/**
 * Takes the next revision number, when `base` is still the newest (or always when `base` is null).
 * A draft leaves the current revision as it is. No row: unknown, deleted, or a lost race.
 */
export function nextRevisionSql(name: string, base: number | null, draft: boolean, at: number): Sql {
  return {
    text: `UPDATE remote_configs SET latest_revision = latest_revision + 1,
  current_revision = CASE WHEN $3 THEN current_revision ELSE latest_revision + 1 END,
  updated_at = ${ts('$4')}
WHERE name = $1 AND deleted_at IS NULL AND ($2::integer IS NULL OR latest_revision = $2)
RETURNING latest_revision`,
    values: [name, base, draft, at],
  };
}

export function insertRevisionSql(r: ConfigRevisionRecord): Sql {
  return {
    text: `INSERT INTO remote_config_revisions (name, revision, selector, body, content_type, enabled, body_hash,
  author, created_at, draft, restored_from)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${ts('$9')}, $10, $11)`,
    values: [
      r.name,
      r.revision,
      r.selector,
      r.body,
      r.contentType,
      r.enabled,
      r.bodyHash,
      r.author,
      r.createdAt,
      r.draft,
      r.restoredFrom,
    ],
  };
}

/** Makes an existing revision current (a finished rollout). */
export function makeCurrentSql(name: string, revision: number, at: number): Sql {
  return {
    text: `UPDATE remote_configs SET current_revision = $2, updated_at = ${ts('$3')}
WHERE name = $1 AND deleted_at IS NULL AND $2 <= latest_revision
RETURNING latest_revision`,
    values: [name, revision, at],
  };
}

export function removeConfigSql(name: string, base: number | null, author: string, at: number): Sql {
  return {
    text: `UPDATE remote_configs SET deleted_at = ${ts('$4')}, deleted_by = $3, current_revision = NULL,
  updated_at = ${ts('$4')}
WHERE name = $1 AND deleted_at IS NULL AND ($2::integer IS NULL OR latest_revision = $2)
RETURNING latest_revision`,
    values: [name, base, author, at],
  };
}

/** The newest revision and whether the name is live: why a conditional write found no row. */
export function configStateSql(name: string): Sql {
  return {
    text: `SELECT latest_revision, deleted_at IS NOT NULL FROM remote_configs WHERE name = $1`,
    values: [name],
  };
}

/** Live configs (or one) with their current and latest revisions, in name order. */
export function listConfigsSql(name?: string): Sql {
  return {
    text: `SELECT ${ms('c.updated_at')}, ${revisionColumns('l')}, ${revisionColumns('r')}
FROM remote_configs c
JOIN remote_config_revisions l ON l.name = c.name AND l.revision = c.latest_revision
LEFT JOIN remote_config_revisions r ON r.name = c.name AND r.revision = c.current_revision
WHERE c.deleted_at IS NULL${name === undefined ? '' : ' AND c.name = $1'}
ORDER BY c.name`,
    values: name === undefined ? [] : [name],
  };
}

export function revisionsSql(name: string, revision?: number): Sql {
  return {
    text: `SELECT ${revisionColumns('r')} FROM remote_config_revisions r
JOIN remote_configs c ON c.name = r.name AND c.deleted_at IS NULL
WHERE r.name = $1${revision === undefined ? '' : ' AND r.revision = $2'}
ORDER BY r.revision DESC`,
    values: revision === undefined ? [name] : [name, revision],
  };
}

/** What is in force: the current revision number of every live config that has one. */
export function inForceSql(): Sql {
  return {
    text: `SELECT name, current_revision FROM remote_configs
WHERE deleted_at IS NULL AND current_revision IS NOT NULL`,
    values: [],
  };
}

/** The given (name, revision) pairs, with their content. */
export function revisionsByKeySql(keys: readonly { name: string; revision: number }[]): Sql {
  return {
    text: `SELECT ${revisionColumns('r')} FROM remote_config_revisions r
JOIN UNNEST($1::text[], $2::integer[]) AS k(name, revision) ON k.name = r.name AND k.revision = r.revision`,
    values: [keys.map((k) => k.name), keys.map((k) => k.revision)],
  };
}
