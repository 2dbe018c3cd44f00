// A config's selector: matchers of the fleet filter language over agent attributes, separated by
// commas (`service.name=~"otelcol.*", deployment.environment=prod`), all of which must hold. An
// empty selector matches no agent (a config is never sent to everyone by accident), and an agent
// that has not described itself is matched by no selector. Pure.
//
// Splitting on commas respects quoted values: a value that starts with a quote runs to the matching
// quote that is followed only by spaces and then a comma or the end, so `a="x, y", b=z` is two
// matchers; an unquoted value cannot contain a comma.

import type { AgentState } from '../agent/agentState.ts';
import { compileFilter, type FleetFilter } from './fleetFilter.ts';
import { parseMatcher, type Matcher, type Parsed } from './matcher.ts';

export interface Selector {
  /** The text as written. */
  readonly text: string;
  readonly matchers: readonly Matcher[];
  /** Null when the selector is empty: it matches no agent. */
  readonly filter: FleetFilter | null;
}

/** At most this many matchers in one selector. */
export const maxSelectorMatchers = 32;

function operatorEnd(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    const c = text[j];
    if (c === ',') return -1;
    if (c === '=') return text[j + 1] === '~' ? j + 2 : j + 1;
    if (c === '!' && (text[j + 1] === '=' || text[j + 1] === '~')) return j + 2;
  }
  return -1;
}

/** The end (exclusive) of the matcher that starts at `start`, and where the next one starts. */
function matcherEnd(text: string, start: number): { end: number; next: number } {
  const op = operatorEnd(text, start);
  const comma = (from: number) => {
    const at = text.indexOf(',', from);
    return at < 0 ? { end: text.length, next: text.length } : { end: at, next: at + 1 };
  };
  if (op < 0) return comma(start);
  let k = op;
  while (text[k] === ' ') k++;
  const quote = text[k];
  if (quote !== '"' && quote !== "'") return comma(op);
  for (let m = k + 1; m < text.length; m++) {
    if (text[m] !== quote) continue;
    let n = m + 1;
    while (text[n] === ' ') n++;
    if (n >= text.length) return { end: text.length, next: text.length };
    if (text[n] === ',') return { end: n, next: n + 1 };
  }
  return { end: text.length, next: text.length }; // unterminated: parseMatcher reports it
}

export function splitSelector(text: string): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length;) {
    const { end, next } = matcherEnd(text, i);
    parts.push(text.slice(i, end));
    i = next;
  }
  return parts.filter((p) => p.trim() !== '');
}

export function parseSelector(text: string): Parsed<Selector> {
  const parts = splitSelector(text);
  if (parts.length > maxSelectorMatchers)
    return { ok: false, error: `selector has ${parts.length} matchers; at most ${maxSelectorMatchers}` };
  const matchers: Matcher[] = [];
  for (const part of parts) {
    const parsed = parseMatcher(part);
    if (!parsed.ok) return { ok: false, error: `selector: ${parsed.error}` };
    matchers.push(parsed.value);
  }
  if (matchers.length === 0) return { ok: true, value: { text, matchers, filter: null } };
  const compiled = compileFilter(matchers.map((matcher) => ({ kind: 'matcher', source: 'match', matcher })));
  if (!compiled.ok) return { ok: false, error: `selector: ${compiled.error}` };
  return { ok: true, value: { text, matchers, filter: compiled.filter } };
}

/** Whether the selector targets the agent: never when empty, never an agent without a description. */
export function selects(selector: Selector, agent: AgentState): boolean {
  return selector.filter !== null && agent.description !== null && selector.filter.matches(agent);
}
