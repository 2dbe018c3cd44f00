// Fleet counts for /api/status, the status page and the fleet gauges. Computed on demand in one pass
// over the registry (cheap at 100,000 agents) rather than kept by hand.

import type { AgentState } from '../agent/agentState.ts';

export interface FleetCounts {
  total: number;
  connected: number;
  disconnected: number;
  healthy: number;
  unhealthy: number;
  health_unknown: number;
  /** Registered without a description (SPEC rule 18). */
  awaiting_full_state: number;
}

export function fleetCounts(agents: Iterable<AgentState>): FleetCounts {
  const c: FleetCounts = {
    total: 0,
    connected: 0,
    disconnected: 0,
    healthy: 0,
    unhealthy: 0,
    health_unknown: 0,
    awaiting_full_state: 0,
  };
  for (const a of agents) {
    c.total++;
    if (a.connected) c.connected++;
    else c.disconnected++;
    if (a.health === null) c.health_unknown++;
    else if (a.health.healthy) c.healthy++;
    else c.unhealthy++;
    if (a.description === null) c.awaiting_full_state++;
  }
  return c;
}
