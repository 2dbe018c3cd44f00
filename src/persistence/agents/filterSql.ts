// The fleet filter (src/projections/filter) as a SQL condition over the list statement's rows
// (agentListSql.ts: `a` the agent row, `s` its session row). Each term becomes a condition that
// every matching agent meets; `exact` says whether the conditions together accept exactly the
// agents filter.matches accepts. Rows are always judged again by filter.matches in the service, so
// an inexact condition only narrows the candidates and never decides: what SQL cannot evaluate
// exactly and safely (regexes outside regexSql.ts's subset, config_state) stays with the RE2
// matcher and the desired-config projection. A regex outside the subset becomes exact once the
// service has judged the attribute's distinct stored values with RE2 (`resolved`,
// pgStoredLists.ts): the condition is then membership in the values it accepted. Pure.
//
// The attribute of a key is what attributeOf reads: the identifying value when it is a string,
// else the non-identifying one when that is a string, and none before the agent described itself
// (agentColumns.ts stores an undescribed agent with empty attribute documents; agentFromRow.ts reads
// a description only when the session says one was reported).

import type { FilterTerm } from '../../projections/filter/filterTerm.ts';
import type { FleetFilter } from '../../projections/filter/fleetFilter.ts';
import { literalPrefix, regexToPostgres } from './regexSql.ts';

export interface FilterSql {
  /** AND-ed conditions; empty when every agent is a candidate. Parameters start at `firstParam`. */
  readonly conditions: readonly string[];
  readonly values: readonly unknown[];
  /** The conditions accept exactly the agents the filter accepts (at `now`). */
  readonly exact: boolean;
  /** The regex terms left to RE2 with no values given for them (`resolved`). */
  readonly regexTerms: readonly MatcherTerm[];
  /** Some condition reads the session row `s`; the others read the agent row alone. */
  readonly readsSession: boolean;
}

export type MatcherTerm = Extract<FilterTerm, { kind: 'matcher' }>;

/**
 * The values of a regex term's attribute that its compiled test accepts, found by the service
 * (RE2) among the distinct values stored, and whether it accepts an agent without the attribute.
 */
export interface ResolvedTerm {
  readonly accepted: readonly string[];
  readonly acceptsMissing: boolean;
}

export interface FilterSqlOptions {
  /** Index of the first parameter these conditions may use ($n). */
  readonly firstParam: number;
  /** The list's clock and the freshness threshold (rule 10), for `connected`. */
  readonly now: number;
  readonly disconnectAfterMs: number;
  /** Regex terms RE2 already judged value by value: exact conditions on those values. */
  readonly resolved?: ReadonlyMap<FilterTerm, ResolvedTerm>;
}

/**
 * The attribute of `key` as attributeOf reads it, with the key as parameter `k`. It reads the agent
 * row alone: an agent that has not described itself is stored with empty attribute documents
 * (agentColumns.ts writes them from the same state as the session's description_reported, in the
 * same transaction), so it has no attribute here either, and a count with attribute conditions does
 * not join agent_session (at 1,000,000 stored agents that join decided the plan).
 */
export const attributeSql = (k: string): string =>
  `(CASE WHEN jsonb_typeof(a.identifying -> ${k}::text) = 'string' THEN a.identifying ->> ${k}::text
      WHEN jsonb_typeof(a.non_identifying -> ${k}::text) = 'string' THEN a.non_identifying ->> ${k}::text END)`;

/** A resolved regex accepting at most this many values is written as containments of each. */
const indexedValues = 32;

export function filterSql(filter: FleetFilter, options: FilterSqlOptions): FilterSql {
  const values: unknown[] = [];
  const param = (value: unknown): string => {
    values.push(value);
    return `$${options.firstParam + values.length - 1}`;
  };
  const conditions: string[] = [];
  let exact = true;
  let readsSession = false;
  const regexTerms: MatcherTerm[] = [];
  const attribute = (key: string): string => attributeSql(param(key));
  const term = (t: FilterTerm): string | undefined => {
    switch (t.kind) {
      case 'boolean':
        if (t.key === 'healthy') return `(a.health_reported AND a.healthy = ${param(t.value)}::boolean)`;
        readsSession = true;
        if (t.key === 'via_gateway') return `(coalesce(s.via_gateway, false) = ${param(t.value)}::boolean)`;
        return `(${connectedSql(param(options.now), param(options.disconnectAfterMs))} = ${param(t.value)}::boolean)`;
      case 'component':
        // Stored agents carry no available components (the list rows leave them out): none matches.
        return 'false';
      case 'config_state':
        exact = false;
        return undefined;
      case 'matcher': {
        const { key, op, value } = t.matcher;
        if (op === '=') {
          // Containment first, so the GIN indexes (migration 00018) find the candidates.
          const doc = param(JSON.stringify({ [key]: value }));
          return `((a.identifying @> ${doc}::jsonb OR a.non_identifying @> ${doc}::jsonb) AND ${attribute(key)} = ${param(value)}::text)`;
        }
        if (op === '!=') return `(${attribute(key)} IS DISTINCT FROM ${param(value)}::text)`;
        const resolved = options.resolved?.get(t);
        if (resolved !== undefined) {
          const among = () => `${attribute(key)} = ANY(${param(resolved.accepted)}::text[])`;
          if (resolved.acceptsMissing) return `(${attribute(key)} IS NULL OR ${among()})`;
          if (resolved.accepted.length === 0) return 'false';
          if (resolved.accepted.length > indexedValues) return `coalesce(${among()}, false)`;
          // Containment of each value first, so the GIN indexes find the candidates.
          const docs = resolved.accepted.map((v) => param(JSON.stringify({ [key]: v })));
          const contained = docs.map(
            (d) => `a.identifying @> ${d}::jsonb OR a.non_identifying @> ${d}::jsonb`,
          );
          return `((${contained.join(' OR ')}) AND coalesce(${among()}, false))`;
        }
        const pattern = regexToPostgres(value);
        if (pattern !== undefined) {
          const test = `${attribute(key)} ~ ${param(pattern)}::text`;
          return op === '=~' ? `coalesce(${test}, false)` : `NOT coalesce(${test}, false)`;
        }
        exact = false;
        regexTerms.push(t);
        if (op === '!~') return undefined;
        const prefix = literalPrefix(value);
        return prefix === ''
          ? `(${attribute(key)} IS NOT NULL)`
          : `starts_with(${attribute(key)}, ${param(prefix)}::text)`;
      }
    }
  };
  for (const t of filter.terms) {
    const condition = term(t);
    if (condition !== undefined) conditions.push(condition);
  }
  return { conditions, values, exact, regexTerms, readsSession };
}

/**
 * Rule 10 as agentFromRow.ts's connectedUntil reads it: connected as stored, while the later of the
 * session's updated_at and alive_at (in whole ms, as the row is read) plus the threshold is not past.
 */
export function connectedSql(now: string, disconnectAfterMs: string): string {
  return `coalesce(s.connected AND round(extract(epoch FROM greatest(s.updated_at, coalesce(s.alive_at, s.updated_at))) * 1000)
    + ${disconnectAfterMs}::float8 >= ${now}::float8, false)`;
}
