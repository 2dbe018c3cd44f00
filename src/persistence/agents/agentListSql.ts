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

/** Which stored copies a list leaves out beyond its filter: those of the agents the registry holds. */
export interface Held {
  /** Ids whose stored copy is left out by id (past `after` for a page). */
  readonly uids: readonly string[];
  /** The replica whose held_by rows are left out (heldRows.ts), when the registry holds agents. */
  readonly by?: string;
}

/**
 * The conditions leaving out what `held` names, their parameters appended to `values`. The held_by
 * test is written so the held_by index answers it with two range scans and the NULLs: the rows of
 * the agents a replica holds are never read. The ids go as one literal (a join, not node-postgres's
 * per-element escaping).
 */
function leavingOut(held: Held, values: unknown[]): string[] {
  const conditions: string[] = [];
  if (held.uids.length > 0) {
    values.push(arrayLiteral(held.uids));
    conditions.push(`NOT (a.instance_uid = ANY($${values.length}::text[]))`);
  }
  if (held.by !== undefined) {
    values.push(held.by);
    const n = values.length;
    conditions.push(`(a.held_by < $${n} OR a.held_by > $${n} OR a.held_by IS NULL)`);
  }
  return conditions;
}

/**
 * Up to `limit` candidates with instance_uid past `after`; the filter's parameters start at $3.
 * The copies `held` names are left out here already: a replica holding most of the stored fleet
 * would otherwise read every one of its own agents' rows to find a page of others.
 */
export function pageCandidatesSql(
  filter: FilterSql,
  after: string,
  limit: number,
  held: Held = { uids: [] },
): Sql {
  const values: unknown[] = [after, limit, ...filter.values];
  const conditions = and([...filter.conditions, ...leavingOut(held, values)]);
  if (filter.readsSession)
    return {
      text: `SELECT ${summaryColumns}
${from} AND a.instance_uid > $1${conditions}
ORDER BY a.instance_uid LIMIT $2`,
      values,
    };
  // The page's rows first, from the agent rows alone; then their sessions and columns. Joined
  // before the limit, a filter matching 20,000 of 1,000,000 agents read 20,000 sessions for a page.
  return {
    text: `SELECT ${summaryColumns}
FROM (SELECT * FROM agents a WHERE a.evicted_at IS NULL AND a.instance_uid > $1${conditions}
  ORDER BY a.instance_uid LIMIT $2) a
LEFT JOIN agent_session s ON s.instance_uid = a.instance_uid
ORDER BY a.instance_uid`,
    values,
  };
}

/** Where the filter's parameters start in countSql. */
export const countFirstParam = 1;

/**
 * How many live stored agents pass an exact filter (its parameters from $1), leaving out those the
 * registry holds (`held`: the local entry wins) and the copies this replica's eviction mask hides
 * (`hiddenUids` with the evicted copies' last_seen in ms: a stored copy not newer than that is
 * hidden). Each exclusion is written only when it has something to leave out: with none, an
 * unfiltered count is an index-only scan (the mask's test reads last_seen from the row).
 */
export function countSql(
  filter: FilterSql,
  held: Held,
  hiddenUids: readonly string[],
  hiddenLastSeen: readonly number[],
): Sql {
  const values: unknown[] = [...filter.values];
  const exclusions = leavingOut(held, values);
  if (hiddenUids.length > 0) {
    values.push(hiddenUids, hiddenLastSeen);
    exclusions.push(`NOT EXISTS (SELECT 1 FROM unnest($${values.length - 1}::text[], $${values.length}::float8[]) m(uid, last_seen)
    WHERE m.uid = a.instance_uid AND round(extract(epoch FROM a.last_seen) * 1000) <= m.last_seen)`);
  }
  return {
    text: `SELECT count(*)::float8 ${from}${and([...filter.conditions, ...exclusions])}`,
    values,
  };
}

/**
 * The counts' total (countedTotalSql) or, when it is NULL, `rows` (countSql): one statement, so a
 * list that falls back to counting rows waits for one round trip, not two. COALESCE evaluates its
 * second argument only when the first is NULL, so a counted total reads no agent row for it.
 */
export function countedTotalOrRows(counted: Sql, rows: Sql): Sql {
  const shift = counted.values.length;
  const renumbered = rows.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + shift}`);
  return {
    text: `SELECT coalesce((${counted.text}), (${renumbered}))`,
    values: [...counted.values, ...rows.values],
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

/**
 * The stored values of attribute $1 as the counts table keeps them (migrations/00021): one row per
 * value, or one row with a null value when the key is known and has none; `counted` false when the
 * key has too many values to be counted (the caller then reads the agent rows); no rows when no
 * stored agent ever had the attribute. At most $2 values.
 */
export function countedValuesSql(key: string, limit: number): Sql {
  return {
    text: `SELECT k.counted, c.value FROM agent_attribute_keys k
LEFT JOIN agent_attribute_counts c ON k.counted AND c.key = k.key
WHERE k.key = $1 LIMIT $2`,
    values: [key, limit],
  };
}

/**
 * How many live stored agents have attribute $1 with one of the values $2, from the counts table,
 * less the stored copies `held` names that match `filter` (its parameters from $4): one statement,
 * so both parts read the same snapshot. Null when the key is not counted, or when the counted
 * agents are fewer than twice $3, the agents held: taking the held copies off would then read more
 * rows than counting the others does (a replica holding most of the fleet counts its few
 * non-held rows through the held_by index).
 */
export function countedTotalSql(
  key: string,
  accepted: readonly string[],
  filter: FilterSql,
  held: Held,
  heldAgents: number,
): Sql {
  const values: unknown[] = [key, accepted, heldAgents];
  if (held.uids.length > 0 || held.by !== undefined) values.push(...filter.values);
  const heldCopies: string[] = [];
  if (held.uids.length > 0) {
    values.push(arrayLiteral(held.uids));
    heldCopies.push(`a.instance_uid = ANY($${values.length}::text[])`);
  }
  if (held.by !== undefined) {
    values.push(held.by);
    heldCopies.push(`a.held_by = $${values.length}`);
  }
  const less =
    heldCopies.length === 0
      ? ''
      : `\n  - (SELECT count(*) FROM agents a WHERE a.evicted_at IS NULL AND (${heldCopies.join(' OR ')})${and(filter.conditions)})`;
  return {
    text: `WITH counted AS (SELECT coalesce(sum(agents), 0) AS n FROM agent_attribute_counts
  WHERE key = $1 AND value = ANY($2::text[]))
SELECT CASE WHEN (SELECT counted FROM agent_attribute_keys WHERE key = $1) IS FALSE
  OR (SELECT n FROM counted) < 2 * $3::float8 THEN NULL
  ELSE ((SELECT n FROM counted)${less})::float8 END`,
    values,
  };
}
