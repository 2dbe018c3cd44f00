// A config's selector: a list of matchers of the fleet filter language over agent attributes
// (`service.name=~"otelcol.*", deployment.environment=prod`, matcherList.ts), all of which must hold.
// An empty selector matches no agent (a config is never sent to everyone by accident), and an agent
// that has not described itself is matched by no selector. Pure.
//
// The agent's status fields (`healthy`, `connected`, `via_gateway`, `config_state`) are understood
// as what they are and refused here: what an agent runs must not flip with its health or its
// connection, and config_state would make a config's targets depend on the config itself.

import type { AgentState } from '../agent/agentState.ts';
import { compileValueTest } from './compileMatcher.ts';
import { compileFilter, type FleetFilter } from './fleetFilter.ts';
import { statusFieldKeys } from './filterTerm.ts';
import { type Matcher, type Parsed } from './matcher.ts';
import { maxListMatchers, parseMatcherList, placedError, splitMatcherList } from './matcherList.ts';

export interface Selector {
  /** The text as written. */
  readonly text: string;
  readonly matchers: readonly Matcher[];
  /** Null when the selector is empty: it matches no agent. */
  readonly filter: FleetFilter | null;
}

/** At most this many matchers in one selector. */
export const maxSelectorMatchers = maxListMatchers;

export const splitSelector = (text: string): string[] => splitMatcherList(text).map((p) => p.text);

export function parseSelector(text: string): Parsed<Selector> {
  const parsed = parseMatcherList(text);
  if (!parsed.ok) return { ...parsed, error: `selector: ${parsed.error}` };
  const matchers: Matcher[] = [];
  const refuse = (error: string, at: number): Parsed<Selector> => {
    const refused = placedError(error, at);
    return { ...refused, error: `selector: ${refused.error}` };
  };
  for (const { matcher, start } of parsed.value) {
    if (statusFieldKeys.includes(matcher.key))
      return refuse(
        `${matcher.key} is an agent's status, not an attribute: a selector chooses agents by their attributes`,
        start,
      );
    const compiled = compileValueTest(matcher);
    if (!compiled.ok) return refuse(compiled.error, start);
    matchers.push(matcher);
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
