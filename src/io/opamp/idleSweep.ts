// Idle WebSocket eviction (issue 7): a socket that sends no OpAMP message for longer than the
// eviction threshold is closed, so silent clients cannot hold a connection slot forever. Only data
// frames count as activity; a client that only pings is still idle.

import type { SchedulerLike, Subscription } from 'rxjs';
import type { WebSocket } from 'ws';

/**
 * Closes sockets that sent no message for longer than `timeoutMs`. One timer for all sockets, running
 * only while some are tracked; it checks at a tenth of the timeout (at most every second), so a silent
 * socket is closed no later than that after its deadline.
 */
export function createIdleSweep(scheduler: SchedulerLike, timeoutMs: number) {
  const lastMessage = new Map<WebSocket, number>();
  const every = Math.max(1, Math.min(1000, Math.floor(timeoutMs / 10)));
  let timer: Subscription | undefined;

  function check(): void {
    const now = scheduler.now();
    for (const [ws, at] of lastMessage) {
      if (now - at > timeoutMs) {
        lastMessage.delete(ws);
        ws.close(1000, 'idle for longer than the eviction threshold');
      }
    }
  }

  return {
    track(ws: WebSocket): void {
      lastMessage.set(ws, scheduler.now());
      timer ??= scheduler.schedule(function (this: { schedule(state?: unknown, delay?: number): void }) {
        check();
        this.schedule(undefined, every);
      }, every);
    },
    touch(ws: WebSocket): void {
      if (lastMessage.has(ws)) lastMessage.set(ws, scheduler.now());
    },
    untrack(ws: WebSocket): void {
      lastMessage.delete(ws);
      if (lastMessage.size === 0) {
        timer?.unsubscribe();
        timer = undefined;
      }
    },
  };
}
