// The liveness sweep (SPEC "States and transitions"): pure. Given the registry and the time, which
// agents become disconnected and which are evicted. Both comparisons are strict. The sweep reads
// last_seen and never changes it (rule 14).
// Liveness follows the transport (docs/protocol.md "Liveness"): an agent connected directly over a
// WebSocket is alive while its socket is (the transport pings a quiet socket and terminates one that
// answers nothing, and the close disconnects the agent), so the sweep never disconnects it, and its
// eviction counts from the later of its last message and its disconnect. OpAMP heartbeats are
// optional: a quiet agent on an open socket is not gone. Plain-HTTP agents, and agents behind a
// gateway (the gateway's socket answers for the gateway, not for them), are alive by their messages.

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

/** An agent whose liveness its WebSocket carries: connected last directly over one. */
export const isHeldBySocket = (agent: AgentState): boolean =>
  agent.session.transport === 'ws' && !agent.session.viaGateway;

/**
 * Events for agents whose silence crossed a threshold. An agent due for eviction while still
 * connected is disconnected first, so every eviction follows a disconnect. With `longestSilentFirst`
 * the agents come in the order of their last message, oldest first (Registry.bySilence), and the
 * sweep stops at the first one within both thresholds: every later one is too.
 */
export interface SweepOptions {
  readonly longestSilentFirst?: boolean;
  /**
   * Whether an open WebSocket here holds the agent now (the adapter's connection owners). A connected
   * agent whose session says WebSocket but that no socket holds is judged by its messages, so it can
   * never stay connected for want of a socket to close. Without it, the session is believed.
   */
  readonly heldHere?: (agent: AgentState) => boolean;
}

export function sweep(
  agents: Iterable<AgentState>,
  now: number,
  t: LivenessThresholds,
  options: SweepOptions = {},
): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (const agent of agents) {
    const silence = now - agent.lastSeen;
    if (silence <= t.disconnectAfterMs && silence <= t.evictAfterMs) {
      if (options.longestSilentFirst === true) break;
      continue;
    }
    const { uid } = agent;
    if (isHeldBySocket(agent) && !agent.connected) {
      // Its eviction clock may start after its last message (at its disconnect): past it, the
      // sweep goes on rather than stop, as the silence order is by last message.
      if (now - Math.max(agent.lastSeen, agent.connectionChangedAt) > t.evictAfterMs)
        events.push({ type: 'AgentEvicted', at: now, data: { uid, lastSeen: agent.lastSeen } });
      continue;
    }
    if (isHeldBySocket(agent) && (options.heldHere?.(agent) ?? true)) continue;
    if (agent.connected) {
      events.push({ type: 'AgentDisconnected', at: now, data: { uid, reason: 'heartbeat_missed' } });
    }
    if (silence > t.evictAfterMs) {
      events.push({ type: 'AgentEvicted', at: now, data: { uid, lastSeen: agent.lastSeen } });
    }
  }
  return events;
}
