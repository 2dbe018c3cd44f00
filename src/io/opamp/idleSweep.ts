// Idle WebSocket eviction (issue 7): a socket that sends no OpAMP message for longer than the
// eviction threshold is closed, so silent clients cannot hold a connection slot forever. Only data
// frames count as activity; a client that only pings is still idle.
// The sweep keeps no table of its own: it walks the transport's open sockets and reads the time of
// each one's last message where the transport keeps it (a field written per message, not a Map entry
// updated per message and one more kept per connection).

import type { SchedulerLike, Subscription } from 'rxjs';

export interface IdleWatch<T> {
  /** The open sockets (the transport's own set). */
  readonly sockets: ReadonlySet<T>;
  /** scheduler.now() of the socket's last message (or of its opening). */
  lastMessageAt(socket: T): number;
  /** Closes a silent socket; it leaves `sockets` when its close completes. */
  close(socket: T): void;
  /** False once a socket is closing: it is not closed again. */
  isOpen(socket: T): boolean;
}

/**
 * Closes sockets that sent no message for longer than `timeoutMs`. One timer for all sockets, running
 * only while there are sockets; it checks at a tenth of the timeout (at most every second), so a
 * silent socket is closed no later than that after its deadline.
 */
export function createIdleSweep<T>(scheduler: SchedulerLike, timeoutMs: number, watch: IdleWatch<T>) {
  const every = Math.max(1, Math.min(1000, Math.floor(timeoutMs / 10)));
  let timer: Subscription | undefined;

  function check(): void {
    const now = scheduler.now();
    for (const socket of watch.sockets) {
      if (watch.isOpen(socket) && now - watch.lastMessageAt(socket) > timeoutMs) watch.close(socket);
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
