// The last resolution of each regex term (RE2's verdict on its attribute's stored values,
// pgStoredLists.ts), kept so a list can read its page and its total with the resolution it will
// most likely get while that resolution is being read, instead of after it: one round trip to
// PostgreSQL instead of two. A guess is only ever used when the resolution read for the request is
// the same (sameResolution), so what a list answers never depends on what is remembered here.

import type { FleetFilter } from '../../projections/filter/fleetFilter.ts';
import type { FilterTerm } from '../../projections/filter/filterTerm.ts';
import type { MatcherTerm, ResolvedTerm } from './filterSql.ts';

export type Resolution = ReadonlyMap<FilterTerm, ResolvedTerm> | undefined;

export const isRegexTerm = (t: FilterTerm): t is MatcherTerm =>
  t.kind === 'matcher' && (t.matcher.op === '=~' || t.matcher.op === '!~');

const signature = (t: MatcherTerm) => `${t.matcher.op}\u0000${t.matcher.key}\u0000${t.matcher.value}`;

export interface ResolutionMemory {
  /** What the read resolution was for each of the filter's regex terms (unresolved ones forgotten). */
  remember(filter: FleetFilter, resolution: Resolution): void;
  /** The filter's regex terms as last resolved; undefined unless every one was. */
  guess(filter: FleetFilter): Resolution;
}

/** Remembers at most `limit` terms, the least recently resolved going first. */
export function createResolutionMemory(limit = 256): ResolutionMemory {
  const last = new Map<string, ResolvedTerm>();
  return {
    remember(filter, resolution) {
      for (const term of filter.terms) {
        if (!isRegexTerm(term)) continue;
        const key = signature(term);
        last.delete(key);
        const resolved = resolution?.get(term);
        if (resolved === undefined) continue;
        if (last.size >= limit) last.delete(last.keys().next().value!);
        last.set(key, resolved);
      }
    },
    guess(filter) {
      const guessed = new Map<FilterTerm, ResolvedTerm>();
      for (const term of filter.terms) {
        if (!isRegexTerm(term)) continue;
        const resolved = last.get(signature(term));
        if (resolved === undefined) return undefined;
        guessed.set(term, resolved);
      }
      return guessed.size > 0 ? guessed : undefined;
    },
  };
}

/** Whether two resolutions of `filter` give it the same conditions (accepted values in any order). */
export function sameResolution(filter: FleetFilter, a: Resolution, b: Resolution): boolean {
  for (const term of filter.terms) {
    if (!isRegexTerm(term)) continue;
    const [x, y] = [a?.get(term), b?.get(term)];
    if (x === undefined || y === undefined) {
      if (x !== y) return false;
      continue;
    }
    if (x.acceptsMissing !== y.acceptsMissing || x.accepted.length !== y.accepted.length) return false;
    const accepted = new Set(x.accepted);
    if (!y.accepted.every((v) => accepted.has(v))) return false;
  }
  return true;
}
