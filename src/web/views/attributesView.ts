// Distinct attribute keys and values across agents, for GET /api/attributes(/values) and the UI's
// filter suggestions. `prefix` is a case-insensitive substring filter (SPEC "GET /api/attributes").

import type { AgentState } from '../../projections/agent/agentState.ts';

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function containing(items: Iterable<string>, prefix: string | undefined): string[] {
  const needle = prefix?.toLowerCase() ?? '';
  const out = needle === '' ? [...items] : [...items].filter((s) => s.toLowerCase().includes(needle));
  return out.sort(byText);
}

/** Keys of both attribute maps, distinct and sorted. */
export function attributeKeys(agents: Iterable<AgentState>, prefix?: string): string[] {
  const keys = new Set<string>();
  for (const a of agents) {
    if (a.description === null) continue;
    for (const k of Object.keys(a.description.identifying)) keys.add(k);
    for (const k of Object.keys(a.description.nonIdentifying)) keys.add(k);
  }
  return containing(keys, prefix);
}

/** Values of `key` in either attribute map, distinct and sorted. */
export function attributeValues(agents: Iterable<AgentState>, key: string, prefix?: string): string[] {
  const values = new Set<string>();
  for (const a of agents) {
    const d = a.description;
    if (d === null) continue;
    if (Object.hasOwn(d.identifying, key)) values.add(d.identifying[key] ?? '');
    if (Object.hasOwn(d.nonIdentifying, key)) values.add(d.nonIdentifying[key] ?? '');
  }
  return containing(values, prefix);
}
