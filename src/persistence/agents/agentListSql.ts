// The statements that answer fleet lists from the store (SPEC durability rules 4, 5, 10): a page of
// live stored agents past a keyset position in instance_uid order (the primary key's order, the "C"
// collation the registry uses), and the count of the ones a list adds to the registry's. The
// filter's conditions come from filterSql.ts. Column order is agentReadSql.ts's summary.

import { arrayLiteral } from '../database/arrayLiteral.ts';
import type { Sql } from '../database/sql.ts';
import { summaryColumns } from './agentReadSql.ts';
import { attributeSql, type FilterSql } from './filterSql.ts';

const from = `FROM agents a LEFT JOIN agent_session s ON s.instance_uid = a.instance_uid
WHERE a.evicted_at IS NULL`;

const and = (conditions: readonly string[]) => conditions.map((c) => `\n  AND ${c}`).join('');

/**
 * Up to `limit` candidates with instance_uid past `after`; the filter's parameters start at $3.
 * `held` (ids the registry holds, past `after`) are left out here already: a replica holding most of
 * the stored fleet would otherwise read every one of its own agents' rows to find a page of others.
 */
export function pageCandidatesSql(
  filter: FilterSql,
  after: string,
  limit: number,
  held: readonly string[] = [],
): Sql {
  const exclude =
    held.length === 0 ? '' : `\n  AND NOT (a.instance_uid = ANY($${3 + filter.values.length}::text[]))`;
  return {
    text: `SELECT ${summaryColumns}
${from} AND a.instance_uid > $1${and(filter.conditions)}${exclude}
ORDER BY a.instance_uid LIMIT $2`,
    values: [after, limit, ...filter.values, ...(held.length === 0 ? [] : [arrayLiteral(held)])],
  };
}

/** Where the filter's parameters start in countSql. */
export const countFirstParam = 4;

/**
 * How many live stored agents pass an exact filter, leaving out those the registry holds (`local`:
 * the local entry wins) and the copies this replica's eviction mask hides (`hiddenUids` with the
 * evicted copies' last_seen in ms: a stored copy not newer than that is hidden).
 */
export function countSql(
  filter: FilterSql,
  local: readonly string[],
  hiddenUids: readonly string[],
  hiddenLastSeen: readonly number[],
): Sql {
  return {
    text: `SELECT count(*)::float8 ${from}${and(filter.conditions)}
  AND NOT (a.instance_uid = ANY($1::text[]))
  AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::float8[]) m(uid, last_seen)
    WHERE m.uid = a.instance_uid AND round(extract(epoch FROM a.last_seen) * 1000) <= m.last_seen)`,
    // The registry's ids as one literal (a join, not node-postgres's per-element escaping): a replica
    // holding 100,000 agents sends them with every count.
    values: [arrayLiteral(local), hiddenUids, hiddenLastSeen, ...filter.values],
  };
}

/**
 * The distinct values of attribute $1 among the candidates of `filter` (its parameters from $3),
 * at most $2 of them, for the service to judge with RE2.
 */
export function distinctValuesSql(filter: FilterSql, key: string, limit: number): Sql {
  return {
    text: `SELECT DISTINCT ${attributeSql('$1')} AS v ${from}${and(filter.conditions)}
LIMIT $2`,
    values: [key, limit, ...filter.values],
  };
}
