// A matcher list (matcherList.ts) as filter terms: `healthy`, `connected`, `via_gateway` and
// `config_state` are the agent's status fields, read exactly as the query parameters of the same
// name; every other key is an attribute. Each problem points at its character. Pure.

import { configStates, type ConfigState } from '../remoteConfig/configState.ts';
import { compileValueTest } from './compileMatcher.ts';
import { booleanFilterKeys, type BooleanFilterKey, type FilterTerm } from './filterTerm.ts';
import type { Parsed } from './matcher.ts';
import { parseMatcherList, placedError, type PlacedMatcher } from './matcherList.ts';

const isBooleanKey = (key: string): key is BooleanFilterKey =>
  (booleanFilterKeys as readonly string[]).includes(key);

/** Where the matcher's value starts, for pointing at it. */
const valueAt = (text: string, placed: PlacedMatcher): number => {
  const { matcher, start } = placed;
  const op = text.indexOf(matcher.op, start + matcher.key.length);
  let at = op + matcher.op.length;
  while (text[at] === ' ') at++;
  return at;
};

function statusTerm(text: string, placed: PlacedMatcher): Parsed<FilterTerm> | undefined {
  const { key, op, value } = placed.matcher;
  if (isBooleanKey(key)) {
    if (op !== '=')
      return placedError(
        `${key} takes only = (write ${key}=true or ${key}=false)`,
        valueAt(text, placed) - op.length,
      );
    if (value !== 'true' && value !== 'false')
      return placedError(`${key} must be true or false, got ${JSON.stringify(value)}`, valueAt(text, placed));
    return { ok: true, value: { kind: 'boolean', key, value: value === 'true' } };
  }
  if (key !== 'config_state') return undefined;
  if (op !== '=' && op !== '!=')
    return placedError('config_state takes = or !=', valueAt(text, placed) - op.length);
  if (!configStates.includes(value as ConfigState))
    return placedError(
      `config_state must be one of ${configStates.join(', ')}, got ${JSON.stringify(value)}`,
      valueAt(text, placed),
    );
  const states = op === '=' ? [value as ConfigState] : configStates.filter((s) => s !== value);
  return { ok: true, value: { kind: 'config_state', states } };
}

export function listTerms(text: string): Parsed<FilterTerm[]> {
  const parsed = parseMatcherList(text);
  if (!parsed.ok) return parsed;
  const terms: FilterTerm[] = [];
  for (const placed of parsed.value) {
    const status = statusTerm(text, placed);
    if (status !== undefined) {
      if (!status.ok) return status;
      terms.push(status.value);
      continue;
    }
    const compiled = compileValueTest(placed.matcher);
    if (!compiled.ok) return placedError(compiled.error, valueAt(text, placed));
    terms.push({ kind: 'matcher', source: 'match', matcher: placed.matcher });
  }
  return { ok: true, value: terms };
}
