// The fleet filter language shared by GET /api/agents and the web UI (SPEC UI rule 3): parses the
// query string once into a compiled FleetFilter, so a list request is one linear pass calling
// `matches(agent)`. All terms combine with AND.

import type { AgentState } from '../agent/agentState.ts';
import { attributeOf } from '../agent/agentState.ts';
import { combineFlagTests, flagTest, type FlagTest } from '../agent/agentFlags.ts';
import { configStates, type ConfigState } from '../remoteConfig/configState.ts';
import { compileValueTest, type AgentPredicate, type ValueTest } from './compileMatcher.ts';
import { booleanFilterKeys, type BooleanFilterKey, type FilterTerm } from './filterTerm.ts';
import { listTerms } from './listTerms.ts';
import { isRegexOp } from './matcher.ts';

export { booleanFilterKeys, statusFieldKeys, type BooleanFilterKey, type FilterTerm } from './filterTerm.ts';

/** Query keys that are never bare attribute filters: pagination, UI sorting and the filter syntax itself. */
export const reservedQueryKeys: readonly string[] = [
  'limit',
  'offset',
  'sort',
  'order',
  'match',
  'attr_key',
  'attr_value',
  'config_state',
  'component',
  ...booleanFilterKeys,
];

/** Issue 7: at most this many attribute matchers (match + bare keys + attr_key pairs) per request. */
export const maxMatchers = 32;

export interface AttributeTest {
  readonly key: string;
  readonly test: ValueTest;
  /** The matcher (key, operator, value): equal for tests that give the same answers. */
  readonly text: string;
}

export interface FleetFilter {
  /** No terms: every agent matches (the read path then pages the ordered index directly). */
  readonly empty: boolean;
  readonly terms: readonly FilterTerm[];
  matches(agent: AgentState): boolean;
  /**
   * The same filter in two parts, for the read path's column evaluation over the registry: tests
   * of attribute values, and predicates over the agent record (the boolean filters). An agent
   * matches when every part accepts it.
   */
  readonly attributeTests: readonly AttributeTest[];
  readonly agentTests: readonly AgentPredicate[];
  /**
   * The boolean terms again as one test of the registry's agent flags (agentFlags.ts), and the
   * predicates that need the record itself (config_state, components): a walk that reads the flags
   * needs only these of agentTests.
   */
  readonly flags: FlagTest;
  readonly recordTests: readonly AgentPredicate[];
}

/** What filters need beyond the agent record (the desired-config projection, for config_state). */
export interface FilterContext {
  readonly configStateOf?: ((agent: AgentState) => ConfigState) | undefined;
}

export interface ParseOptions extends FilterContext {
  /** More keys to leave alone (for example UI-only parameters). */
  readonly ignoreKeys?: readonly string[];
  /** Skip parameters with an empty value (HTML forms submit empty fields). The API is strict. */
  readonly ignoreEmpty?: boolean;
}

/** A refusal of a matcher list says which list (`source`) and where in it (`at`, 0-based). */
export type ParsedQuery =
  | { readonly ok: true; readonly filter: FleetFilter }
  | { readonly ok: false; readonly error: string; readonly at?: number; readonly source?: string };

type Refusal = Extract<ParsedQuery, { ok: false }>;

const booleanPredicates: Record<BooleanFilterKey, (value: boolean) => AgentPredicate> = {
  // healthy=false matches agents that reported unhealthy, not those whose health is unknown.
  healthy: (v) => (a) => a.health !== null && a.health.healthy === v,
  connected: (v) => (a) => a.connected === v,
  via_gateway: (v) => (a) => a.session.viaGateway === v,
};

function collectTerms(params: URLSearchParams, options: ParseOptions): FilterTerm[] | string | Refusal {
  const values = (key: string) => params.getAll(key).filter((v) => !options.ignoreEmpty || v !== '');
  const terms: FilterTerm[] = [];
  for (const key of booleanFilterKeys) {
    const given = values(key);
    if (given.length > 1) return `${key} may be given only once`;
    const [v] = given;
    if (v === undefined) continue;
    if (v !== 'true' && v !== 'false') return `${key} must be true or false, got ${JSON.stringify(v)}`;
    terms.push({ kind: 'boolean', key, value: v === 'true' });
  }
  const stateValues = values('config_state');
  if (stateValues.length > 1) return 'config_state may be given only once (list states with commas)';
  if (stateValues[0] !== undefined) {
    const states = stateValues[0].split(',').map((v) => v.trim());
    const unknown = states.filter((v) => !configStates.includes(v as ConfigState));
    if (unknown.length > 0)
      return `config_state must be one or more of ${configStates.join(', ')}, got ${JSON.stringify(unknown[0])}`;
    terms.push({ kind: 'config_state', states: states as ConfigState[] });
  }
  const components = values('component');
  if (components.length > maxComponentTerms)
    return `too many component terms: ${components.length} given, at most ${maxComponentTerms}`;
  for (const text of components) {
    const term = componentTerm(text);
    if (typeof term === 'string') return term;
    terms.push(term);
  }
  const keys = values('attr_key');
  const attrValues = values('attr_value');
  if (keys.length !== attrValues.length) return 'attr_key and attr_value must be given together';
  const matcherTexts = values('match');
  const ignored = new Set([...reservedQueryKeys, ...(options.ignoreKeys ?? [])]);
  const bare = [...new Set(params.keys())].filter((k) => !ignored.has(k));
  const count = matcherTexts.length + keys.length + bare.reduce((n, k) => n + values(k).length, 0);
  if (count > maxMatchers) return `too many matchers: ${count} given, at most ${maxMatchers} per request`;

  // Each `match` is a list (the fleet box sends what was typed); its status fields are the same
  // terms as the parameters above, and a field given twice must hold twice.
  let listed = 0;
  for (const text of matcherTexts) {
    const parsed = listTerms(text);
    if (!parsed.ok) return { ...parsed, source: text };
    listed += parsed.value.length;
    terms.push(...parsed.value);
  }
  if (listed - matcherTexts.length + count > maxMatchers)
    return `too many matchers: ${listed - matcherTexts.length + count} given, at most ${maxMatchers} per request`;
  for (const key of bare) {
    for (const value of values(key))
      terms.push({ kind: 'matcher', source: 'bare', matcher: { key, op: '=', value } });
  }
  for (const [i, key] of keys.entries()) {
    if (key === '') return 'attr_key must not be empty';
    terms.push({ kind: 'matcher', source: 'legacy', matcher: { key, op: '=', value: attrValues[i] ?? '' } });
  }
  return terms;
}

/** At most this many `component` terms per request, each at most this long. */
export const maxComponentTerms = 16;
const maxComponentText = 256;

/** `otlp` (any kind) or `receivers/otlp`; a type may hold further slashes only after the kind. */
function componentTerm(text: string): FilterTerm | string {
  if (text === '' || text.length > maxComponentText)
    return `component must be a component type or kind/type of at most ${maxComponentText} characters`;
  const slash = text.indexOf('/');
  if (slash < 0) return { kind: 'component', componentKind: undefined, type: text };
  const [componentKind, type] = [text.slice(0, slash), text.slice(slash + 1)];
  if (componentKind === '' || type === '')
    return `component must be a component type or kind/type, got ${JSON.stringify(text)}`;
  return { kind: 'component', componentKind, type };
}

function componentPredicate(term: { componentKind: string | undefined; type: string }): AgentPredicate {
  const { componentKind, type } = term;
  return (agent) => {
    const components = agent.availableComponents?.components;
    if (components === undefined) return false;
    if (componentKind !== undefined) return components[componentKind]?.includes(type) === true;
    for (const kind in components) if (components[kind]!.includes(type)) return true;
    return false;
  };
}

/** Cheapest first: booleans, then exact matches, then regexes, then components and config states. */
const cost = (t: FilterTerm): number =>
  t.kind === 'boolean'
    ? 0
    : t.kind === 'config_state' || t.kind === 'component'
      ? 3
      : isRegexOp(t.matcher.op)
        ? 2
        : 1;

function configStatePredicate(states: readonly ConfigState[], context: FilterContext): AgentPredicate {
  const wanted = new Set(states);
  const stateOf = context.configStateOf ?? (() => 'unmanaged' as const);
  return (agent) => wanted.has(stateOf(agent));
}

export function compileFilter(terms: readonly FilterTerm[], context: FilterContext = {}): ParsedQuery {
  const agentTests: AgentPredicate[] = [];
  const recordTests: AgentPredicate[] = [];
  const flagTests: FlagTest[] = [];
  const attributeTests: AttributeTest[] = [];
  for (const term of [...terms].sort((a, b) => cost(a) - cost(b))) {
    if (term.kind === 'boolean') {
      agentTests.push(booleanPredicates[term.key](term.value));
      flagTests.push(flagTest(term.key, term.value));
      continue;
    }
    if (term.kind === 'config_state') {
      agentTests.push(configStatePredicate(term.states, context));
      recordTests.push(agentTests.at(-1)!);
      continue;
    }
    if (term.kind === 'component') {
      agentTests.push(componentPredicate(term));
      recordTests.push(agentTests.at(-1)!);
      continue;
    }
    const compiled = compileValueTest(term.matcher);
    if (!compiled.ok) return compiled;
    const { key, op, value } = term.matcher;
    attributeTests.push({ key, test: compiled.value, text: `${key}\u0000${op}\u0000${value}` });
  }
  const matches = (agent: AgentState): boolean => {
    for (const p of agentTests) if (!p(agent)) return false;
    for (const { key, test } of attributeTests) if (!test(attributeOf(agent, key))) return false;
    return true;
  };
  const empty = agentTests.length === 0 && attributeTests.length === 0;
  // Each boolean key is given at most once (collectTerms), so the flag tests never contradict.
  const flags = combineFlagTests(flagTests) ?? { mask: 0, want: 1 };
  return {
    ok: true,
    filter: Object.freeze({ empty, terms, matches, attributeTests, agentTests, flags, recordTests }),
  };
}

/** Parses and compiles the filter part of a fleet query string; errors are messages for a 400. */
export function parseFleetQuery(params: URLSearchParams, options: ParseOptions = {}): ParsedQuery {
  const terms = collectTerms(params, options);
  if (typeof terms === 'string') return { ok: false, error: terms };
  if (!Array.isArray(terms)) return terms;
  return compileFilter(terms, options);
}

/** The filter that matches every agent. */
export const matchAll: FleetFilter = Object.freeze({
  empty: true,
  terms: [],
  matches: () => true,
  attributeTests: [],
  agentTests: [],
  flags: { mask: 0, want: 0 },
  recordTests: [],
});
