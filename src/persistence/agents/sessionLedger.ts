// What this replica last wrote to each agent's session row, so the refresh pass (rule 9) and the
// flush rewrite only rows that are due: none written yet, a connection state the row does not
// carry yet (at once: siblings must see a disconnect within a flush, not when the row ages), or
// aged to the keepalive interval with a later last_seen. Pure data and functions.

import type { AgentState } from '../../projections/agent/agentState.ts';

export interface SessionMark {
  /** The session row's updated_at: the agent's last_seen when written. */
  readonly updatedAt: number;
  readonly connected: boolean;
}

export interface SessionLedger {
  record(agent: AgentState): void;
  forget(uid: string): void;
  isDue(agent: AgentState, now: number): boolean;
  readonly size: number;
}

/**
 * Rule 9: keepalive is two thirds of the disconnect threshold, clamped so keepalive plus one pass
 * still fits under the threshold (a sibling reading the row then still finds it fresh, rule 10).
 */
export function keepaliveMs(disconnectAfterMs: number, passMs: number): number {
  return Math.max(0, Math.min((disconnectAfterMs * 2) / 3, disconnectAfterMs - passMs));
}

export function isSessionDue(
  mark: SessionMark | undefined,
  agent: AgentState,
  now: number,
  keepalive: number,
): boolean {
  if (mark === undefined || agent.connected !== mark.connected) return true;
  return now - mark.updatedAt >= keepalive && agent.lastSeen > mark.updatedAt;
}

export function createSessionLedger(keepalive: number): SessionLedger {
  const marks = new Map<string, SessionMark>();
  return {
    record: (agent) => void marks.set(agent.uid, { updatedAt: agent.lastSeen, connected: agent.connected }),
    forget: (uid) => void marks.delete(uid),
    isDue: (agent, now) => isSessionDue(marks.get(agent.uid), agent, now, keepalive),
    get size() {
      return marks.size;
    },
  };
}
