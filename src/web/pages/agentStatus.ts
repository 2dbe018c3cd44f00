// The one status an agent row shows. Disconnected wins over any reported health (issue 6): a
// disconnected agent's last health report is stale by definition.

import type { AgentState } from '../../projections/agent/agentState.ts';

export type AgentStatus = 'healthy' | 'unhealthy' | 'unknown' | 'disconnected';

export const statusLabels: Readonly<Record<AgentStatus, string>> = {
  healthy: 'Healthy',
  unhealthy: 'Unhealthy',
  unknown: 'Unknown',
  disconnected: 'Disconnected',
};

export function agentStatus(agent: AgentState): AgentStatus {
  if (!agent.connected) return 'disconnected';
  if (agent.health === null) return 'unknown';
  return agent.health.healthy ? 'healthy' : 'unhealthy';
}

/** Sort rank for `sort=status`: ascending puts the agents that need attention first. */
export const statusRank: Readonly<Record<AgentStatus, number>> = {
  unhealthy: 0,
  disconnected: 1,
  unknown: 2,
  healthy: 3,
};
