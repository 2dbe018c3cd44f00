// The registry's record of an agent as JSON: every AgentState field, bigints as decimal strings and
// times as ISO 8601 UTC. Used for the replay output and to compare a replayed registry with a live one.

import type { AgentState } from '../../src/projections/agent/agentState.ts';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function toJson(value: unknown): Json {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toJson(v);
    return out;
  }
  return value as Json;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function agentJson(agent: AgentState): Json {
  return toJson({
    ...agent,
    firstSeen: iso(agent.firstSeen),
    lastSeen: iso(agent.lastSeen),
    complianceUpdatedAt: iso(agent.complianceUpdatedAt),
    connectionChangedAt: iso(agent.connectionChangedAt),
  });
}
