// What this replica last wrote to each agent's session row, so the refresh pass (rule 9) and the
// flush rewrite only rows that are due: none written yet, a connection state the row does not
// carry yet (at once: siblings must see a disconnect within a flush, not when the row ages), or
// aged to the keepalive interval with a later alive time. Pure data and functions.
// The alive time is the agent's last_seen, or later for a connected agent held by an open WebSocket
// of this replica: the last time that socket answered (a message or a pong, idleSweep.ts). OpAMP
// heartbeats are optional, so a quiet agent kept connected by pings has no later last_seen, and
// without it siblings would show it gone (rule 10) while the socket here still answers.

import type { AgentState } from '../../projections/agent/agentState.ts';

export interface SessionMark {
  /** The session row's updated_at: the agent's last_seen when written. */
  readonly updatedAt: number;
  /** The session row's alive_at: the agent's alive time when written. */
  readonly aliveAt: number;
  readonly connected: boolean;
}

/**
 * The time the WebSocket of this replica that holds the agent last answered, or undefined when none
 * holds it (plain HTTP, behind a gateway, not connected here).
 */
export type SocketAlive = (agent: AgentState) => number | undefined;

/** Agents' alive times where later than their last_seen, as taken for one write. */
export type AliveTimes = ReadonlyMap<string, number>;

const noAlive: AliveTimes = new Map();

/** An agent's alive time in a snapshot: never earlier than its last_seen. */
export const aliveIn = (agent: AgentState, alive: AliveTimes): number =>
  Math.max(agent.lastSeen, alive.get(agent.uid) ?? agent.lastSeen);

/** The alive times of `agents` now: only those later than last_seen, of connected agents. */
export function aliveTimes(agents: Iterable<AgentState>, socketAlive: SocketAlive | undefined): AliveTimes {
  if (socketAlive === undefined) return noAlive;
  const out = new Map<string, number>();
  for (const agent of agents) {
    if (!agent.connected) continue;
    const at = socketAlive(agent);
    if (at !== undefined && at > agent.lastSeen) out.set(agent.uid, at);
  }
  return out;
}

export interface SessionLedger {
  /** Records a written row; `alive` is the snapshot the row was written with. */
  record(agent: AgentState, alive?: AliveTimes): void;
  forget(uid: string): void;
  isDue(agent: AgentState, now: number): boolean;
  /** A snapshot of the alive times of `agents`, to write and then record. */
  aliveTimes(agents: Iterable<AgentState>): AliveTimes;
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
  aliveAt: number,
  now: number,
  keepalive: number,
): boolean {
  if (mark === undefined || agent.connected !== mark.connected) return true;
  return now - mark.aliveAt >= keepalive && aliveAt > mark.aliveAt;
}

export function createSessionLedger(keepalive: number, socketAlive?: SocketAlive): SessionLedger {
  const marks = new Map<string, SessionMark>();
  const aliveNow = (agent: AgentState): number => {
    const at = agent.connected ? socketAlive?.(agent) : undefined;
    return at === undefined ? agent.lastSeen : Math.max(agent.lastSeen, at);
  };
  return {
    record: (agent, alive = noAlive) =>
      void marks.set(agent.uid, {
        updatedAt: agent.lastSeen,
        aliveAt: aliveIn(agent, alive),
        connected: agent.connected,
      }),
    forget: (uid) => void marks.delete(uid),
    isDue(agent, now) {
      const mark = marks.get(agent.uid);
      // Most rows are neither new, nor changed, nor aged: answered without asking the socket.
      if (mark !== undefined && agent.connected === mark.connected && now - mark.aliveAt < keepalive)
        return false;
      return isSessionDue(mark, agent, aliveNow(agent), now, keepalive);
    },
    aliveTimes: (agents) => aliveTimes(agents, socketAlive),
    get size() {
      return marks.size;
    },
  };
}
