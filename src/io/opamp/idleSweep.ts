// WebSocket liveness (docs/protocol.md "Liveness"), one sweep over the transport's open sockets.
// - A socket that holds an agent follows the transport: quiet for a heartbeat interval, it is pinged
//   (a WebSocket ping frame); a pong, like a message, proves it alive; a ping left unanswered for half
//   an interval means the socket is gone and it is terminated (its agents are then disconnected by
//   the close). OpAMP heartbeats are optional (only agents with ReportsHeartbeat send them), so an
//   agent that is quiet but answers pings stays connected.
// - A socket that holds no agent (issue 7) must send messages: silent for longer than the idle
//   timeout (the eviction threshold) it is closed with 1000, whatever it pings or pongs.
// A ping the peer sends is not counted: ws answers it, and a peer alive enough to ping answers ours.
// The sweep keeps no table of its own and reads no clock per frame: each socket carries flags the
// transport sets on every message and pong (field writes), and the sweep turns a set flag into
// "heard of now" and clears it. judge() is the decision, pure; createIdleSweep only times it.

import type { SchedulerLike, Subscription } from 'rxjs';

/** What the sweep keeps on each socket. */
export interface IdleMark {
  /** Set by the transport on every message; cleared by the sweep. */
  spoke: boolean;
  /** Set by the transport on every pong; cleared by the sweep. */
  ponged: boolean;
  /** scheduler.now() at the check that last found `spoke` set (or at the socket's opening). */
  heardAt: number;
  /** scheduler.now() at the check that last found `spoke` or `ponged` set (or at the opening). */
  aliveAt: number;
  /** scheduler.now() when the unanswered ping went out; undefined when none is out. */
  pingedAt: number | undefined;
}

export interface LivenessRule {
  /** A socket holding no agent and sending no message for longer than this is closed. */
  readonly idleTimeoutMs: number;
  /** A socket holding an agent and quiet for this long is pinged; never when undefined. */
  readonly pingAfterMs: number | undefined;
}

/** What to do with one socket at a check. */
export type Verdict = 'keep' | 'ping' | 'close_idle' | 'terminate';

/** How long a ping may wait for its pong: half the ping interval, so a dead socket is gone within one. */
export const pongWaitMs = (pingAfterMs: number): number => Math.max(1, Math.floor(pingAfterMs / 2));

/**
 * The decision for one socket at `now`, after noting what it sent since the last check (the mark is
 * updated in place: the flags are cleared, the times moved). Pure but for that mark.
 */
export function judge(mark: IdleMark, now: number, rule: LivenessRule, holdsAgent: boolean): Verdict {
  if (mark.spoke) mark.heardAt = now;
  if (mark.spoke || mark.ponged) {
    mark.aliveAt = now;
    mark.pingedAt = undefined;
  }
  mark.spoke = false;
  mark.ponged = false;
  if (holdsAgent && rule.pingAfterMs !== undefined) {
    if (mark.pingedAt !== undefined)
      return now - mark.pingedAt >= pongWaitMs(rule.pingAfterMs) ? 'terminate' : 'keep';
    if (now - mark.aliveAt < rule.pingAfterMs) return 'keep';
    mark.pingedAt = now;
    return 'ping';
  }
  mark.pingedAt = undefined;
  return now - mark.heardAt > rule.idleTimeoutMs ? 'close_idle' : 'keep';
}

/** A fresh mark for a socket opened at `now`. */
export const openedMark = (now: number): IdleMark => ({
  spoke: false,
  ponged: false,
  heardAt: now,
  aliveAt: now,
  pingedAt: undefined,
});

export interface IdleWatch<T> {
  /** The open sockets (the transport's own set). */
  readonly sockets: ReadonlySet<T>;
  markOf(socket: T): IdleMark;
  /** Whether the socket holds an agent now (connectionOwners.ts). */
  holdsAgent(socket: T): boolean;
  /** False once a socket is closing: it is not judged again. */
  isOpen(socket: T): boolean;
  /** Carries out a verdict other than 'keep'; a closed socket leaves `sockets` when its close completes. */
  act(socket: T, verdict: Exclude<Verdict, 'keep'>): void;
}

/** How often to check: a tenth of the shortest wait, at most every second. */
export function checkEveryMs(rule: LivenessRule): number {
  const shortest =
    rule.pingAfterMs === undefined
      ? rule.idleTimeoutMs
      : Math.min(rule.idleTimeoutMs, pongWaitMs(rule.pingAfterMs));
  return Math.max(1, Math.min(1000, Math.floor(shortest / 10)));
}

/**
 * One timer for all sockets, running only while there are sockets. A frame is noted at the check
 * after it, so each deadline is seen within one check of passing.
 */
export function createIdleSweep<T>(scheduler: SchedulerLike, rule: LivenessRule, watch: IdleWatch<T>) {
  const every = checkEveryMs(rule);
  let timer: Subscription | undefined;

  function check(): void {
    const now = scheduler.now();
    for (const socket of watch.sockets) {
      if (!watch.isOpen(socket)) continue;
      const verdict = judge(watch.markOf(socket), now, rule, watch.holdsAgent(socket));
      if (verdict !== 'keep') watch.act(socket, verdict);
    }
  }

  return {
    /** A socket opened: the timer runs from now on, while there are sockets. */
    opened(): void {
      timer ??= scheduler.schedule(function (this: { schedule(state?: unknown, delay?: number): void }) {
        check();
        this.schedule(undefined, every);
      }, every);
    },
    /** A socket closed (and left `sockets`): the timer stops with the last one. */
    closed(): void {
      if (watch.sockets.size === 0) {
        timer?.unsubscribe();
        timer = undefined;
      }
    },
  };
}
