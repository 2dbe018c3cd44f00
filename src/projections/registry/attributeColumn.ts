// A column of one attribute across the fleet, aligned with the registry's ordered index: entry i is
// the id of agent i's value (0 when the agent lacks the key), `values[id]` the value itself. A filter
// then evaluates its matcher once per distinct value instead of once per agent, and walks a compact
// Uint32Array instead of every agent's attribute map: the difference between chasing pointers through
// 100,000 records and scanning 400 KB. Pure.

import { attributeOf, type AgentState } from '../agent/agentState.ts';

export interface AttributeColumn {
  /** Per agent in instance_uid order: index into `values`. */
  readonly ids: Uint32Array;
  /** Distinct values; `values[0]` is undefined (key absent). */
  readonly values: readonly (string | undefined)[];
}

export function buildAttributeColumn(agents: readonly AgentState[], key: string): AttributeColumn {
  const ids = new Uint32Array(agents.length);
  const values: (string | undefined)[] = [undefined];
  const idOf = new Map<string, number>();
  for (let i = 0; i < agents.length; i++) {
    const value = attributeOf(agents[i]!, key);
    if (value === undefined) continue;
    let id = idOf.get(value);
    if (id === undefined) {
      id = values.length;
      values.push(value);
      idOf.set(value, id);
    }
    ids[i] = id;
  }
  return { ids, values };
}
