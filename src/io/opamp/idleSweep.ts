// Idle WebSocket eviction (issue 7): a socket that sends no OpAMP message for longer than the
// eviction threshold is closed, so silent clients cannot hold a connection slot forever. Only data
// frames count as activity; a client that only pings is still idle.
// The sweep keeps no table of its own and reads no clock per message: each socket carries a flag the
// transport sets on every message (a field write, not a Map entry updated per message and one more
// kept per connection), and the sweep, walking the transport's open sockets, turns a set flag into
// "last heard of now" and clears it.

import type { SchedulerLike, Subscription } from 'rxjs';

/** What the sweep keeps on each socket. */
export interface IdleMark {
  /** Set by the transport on every message; cleared by the sweep. */
  spoke: boolean;
  /** scheduler.now() at the check that last found `spoke` set (or at the socket's opening). */
  heardAt: number;
}

export interface IdleWatch<T> {
  /** The open sockets (the transport's own set). */
  readonly sockets: ReadonlySet<T>;
  markOf(socket: T): IdleMark;
  /** Closes a silent socket; it leaves `sockets` when its close completes. */
  close(socket: T): void;
  /** False once a socket is closing: it is not closed again. */
  isOpen(socket: T): boolean;
}

/**
 * Closes sockets that sent no message for longer than `timeoutMs`. One timer for all sockets, running
 * only while there are sockets; it checks at a tenth of the timeout (at most every second). A message
 * is noted at the check after it, so a silent socket is closed within two checks of its deadline.
 */
export function createIdleSweep<T>(scheduler: SchedulerLike, timeoutMs: number, watch: IdleWatch<T>) {
  const every = Math.max(1, Math.min(1000, Math.floor(timeoutMs / 10)));
  let timer: Subscription | undefined;

  function check(): void {
    const now = scheduler.now();
    for (const socket of watch.sockets) {
      const mark = watch.markOf(socket);
      if (mark.spoke) {
        mark.spoke = false;
        mark.heardAt = now;
      } else if (watch.isOpen(socket) && now - mark.heardAt > timeoutMs) watch.close(socket);
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
