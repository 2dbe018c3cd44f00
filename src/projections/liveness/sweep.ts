// The liveness sweep (SPEC "States and transitions"): pure. Given the registry and the time, which
// agents become disconnected and which are evicted. Both comparisons are strict. The sweep reads
// last_seen and never changes it (rule 14).

import type { AgentEvent } from '../../events/fleetEvent.ts';
import type { AgentState } from '../agent/agentState.ts';

export interface LivenessThresholds {
  /** No message for more than this → disconnected (1.5 × heartbeat interval). */
  readonly disconnectAfterMs: number;
  /** No message for more than this → evicted (heartbeat interval × missed heartbeats). */
  readonly evictAfterMs: number;
}

export function livenessThresholds(
  heartbeatIntervalMs: number,
  staleMissedHeartbeats: number,
): LivenessThresholds {
  return {
    disconnectAfterMs: heartbeatIntervalMs * 1.5,
    evictAfterMs: heartbeatIntervalMs * staleMissedHeartbeats,
  };
}

/** How often to sweep: transitions are seen no later than 1 s, or a tenth of the threshold, after due. */
export function sweepIntervalMs(t: LivenessThresholds): number {
  return Math.max(1, Math.min(1000, Math.floor(Math.min(t.disconnectAfterMs, t.evictAfterMs) / 10)));
}

/**
 * Events for agents whose silence crossed a threshold. An agent due for eviction while still
 * connected is disconnected first, so every eviction follows a disconnect. With `longestSilentFirst`
 * the agents come in the order of their last message, oldest first (Registry.bySilence), and the
 * sweep stops at the first one within both thresholds: every later one is too.
 */
export function sweep(
  agents: Iterable<AgentState>,
  now: number,
  t: LivenessThresholds,
  options: { readonly longestSilentFirst?: boolean } = {},
): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (const agent of agents) {
    const silence = now - agent.lastSeen;
    if (silence <= t.disconnectAfterMs && silence <= t.evictAfterMs) {
      if (options.longestSilentFirst === true) break;
      continue;
    }
    const { uid } = agent;
    if (agent.connected) {
      events.push({ type: 'AgentDisconnected', at: now, data: { uid, reason: 'heartbeat_missed' } });
    }
    if (silence > t.evictAfterMs) {
      events.push({ type: 'AgentEvicted', at: now, data: { uid, lastSeen: agent.lastSeen } });
    }
  }
  return events;
}
