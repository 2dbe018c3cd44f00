// What one accepted socket may cost a listener before it has asked anything (docs/security.md
// "Limits and hostile input"), the same for plain and TLS sockets:
// - it counts from accept (the TCP connection, before any TLS handshake) until it closes, so idle
//   TLS sockets fill `maxConnections` as WebSockets and requests in flight do; a request or upgrade
//   on a socket accepted at the limit, while the listener is still over it, is refused by its
//   listener (`overCapacity`); sockets accepted within the limit keep being served;
// - it must bring one complete request (headers, or a WebSocket upgrade) within `firstRequestMs` of
//   accept, handshake included, else it is destroyed and counted (`request_timeout`). Node's own
//   headers timeout starts only once the TLS handshake is done and depends on its version; this
//   timer does not.
// - past `maxConnections` plus a margin (`hardLimitOf`), a new connection is closed at accept
//   without a word (Node's server.maxConnections) and counted (`max_connections`): the sockets a
//   listener holds, so its file descriptors, are bounded even against a client that opens them
//   faster than the first-request timer closes them, and the UI and telemetry keep theirs.
// Later requests on a keep-alive socket are Node's: its headers, request and keep-alive timeouts.

import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';

export interface ConnectionGuardOptions {
  /** From accept to the first complete request's headers (listeners.header_timeout). */
  readonly firstRequestMs: number;
  /** opamp.max_connections; none when absent. */
  readonly maxConnections?: number;
  /**
   * A socket closed before its first request (`request_timeout`) or at accept past the hard limit
   * (`max_connections`); never given anything it sent.
   */
  readonly onRefused?: (reason: 'request_timeout' | 'max_connections', remoteAddr: string) => void;
}

export interface ConnectionGuard {
  /** Guards `server`'s sockets; call once, after its upgrade listener (if any) is on, before it listens. */
  attach(server: Server): void;
  /** Sockets open now (accepted, not yet closed). */
  readonly open: number;
  /** The request's socket was accepted when `maxConnections` sockets were open, and more than that still are. */
  readonly overCapacity: (req: IncomingMessage) => boolean;
}

/**
 * A TLS request's socket is not the accepted TCP socket but wraps it; both report the same
 * addresses, which name one open TCP connection of the listener. Only TLS listeners build it: a
 * plain request's socket is the accepted one, which carries its entry (no address lookups, which
 * are system calls, and no string per connection).
 */
const keyOf = (s: Socket): string => `${s.localAddress}|${s.localPort}|${s.remoteAddress}|${s.remotePort}`;

/** Sockets held at most: the limit, and room to answer 503 to a tenth more (at least 16). */
export const hardLimitOf = (maxConnections: number): number =>
  maxConnections + Math.max(16, Math.ceil(maxConnections / 10));

interface Accepted {
  readonly over: boolean;
  /** When its first request is due (performance.now(), ms). */
  readonly due: number;
  /** The socket, until its first request came or it closed: what the deadline destroys. */
  waiting: Socket | undefined;
  /** Its key in the TLS listener's map; undefined on a plain listener. */
  key: string | undefined;
}

/**
 * A socket's entry: set at accept on the accepted socket, and on a TLS request's socket once its
 * first request found it (null: accepted before the guard was on).
 */
const entryKey = Symbol('connection guard entry');
type Guarded = Socket & { [entryKey]?: Accepted | null };

export function createConnectionGuard(options: ConnectionGuardOptions): ConnectionGuard {
  /** A TLS listener's entries by key (keyOf). */
  const accepted = new Map<string, Accepted>();
  /** Set by attach: the listener is a TLS one, whose requests come on sockets wrapping the accepted ones. */
  let keyed = false;
  let open = 0;
  /**
   * Entries in order of accept, so of deadline (every socket has the same wait), from `head` on:
   * one timer for the earliest instead of a timer per socket, whose creation and clearing would be
   * most of what the guard costs a connection.
   */
  const deadlines: (Accepted | undefined)[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | undefined;

  function onConnection(socket: Socket): void {
    const max = options.maxConnections;
    const entry: Accepted = {
      over: max !== undefined && open >= max,
      due: performance.now() + options.firstRequestMs,
      waiting: socket,
      key: undefined,
    };
    open++;
    deadlines.push(entry);
    if (timer === undefined) arm(options.firstRequestMs);
    (socket as Guarded)[entryKey] = entry;
    if (keyed) {
      entry.key = keyOf(socket);
      accepted.set(entry.key, entry);
    }
    // One listener for every socket: no closure per connection.
    socket.on('close', onClose);
  }

  function arm(delayMs: number): void {
    timer = setTimeout(expire, Math.max(1, Math.ceil(delayMs))).unref();
  }

  /** Destroys the sockets whose deadline passed without a request; waits for the next one. */
  function expire(): void {
    timer = undefined;
    const now = performance.now();
    while (head < deadlines.length) {
      const entry = deadlines[head]!;
      if (entry.waiting !== undefined && entry.due > now) break;
      deadlines[head++] = undefined;
      const socket = entry.waiting;
      if (socket === undefined) continue;
      entry.waiting = undefined;
      options.onRefused?.('request_timeout', socket.remoteAddress ?? '');
      socket.destroy();
    }
    if (head === deadlines.length) {
      deadlines.length = 0;
      head = 0;
      return;
    }
    // The passed entries leave the array once they are most of it.
    if (head > 1024 && head * 2 > deadlines.length) {
      deadlines.splice(0, head);
      head = 0;
    }
    arm(deadlines[head]!.due - now);
  }

  function onClose(this: Socket): void {
    open--;
    const entry = (this as Guarded)[entryKey];
    if (!entry) return;
    entry.waiting = undefined;
    if (entry.key !== undefined && accepted.get(entry.key) === entry) accepted.delete(entry.key);
  }

  /** The entry of a request's socket: the accepted socket's own, or found once by its key (TLS). */
  function entryOf(socket: Socket): Accepted | undefined {
    const own = (socket as Guarded)[entryKey];
    if (own !== undefined) return own ?? undefined;
    const found = keyed ? accepted.get(keyOf(socket)) : undefined;
    (socket as Guarded)[entryKey] = found ?? null;
    return found;
  }

  /** The socket asked something: the first-request timer has done its work. */
  function heard(req: IncomingMessage): void {
    const entry = entryOf(req.socket);
    if (entry !== undefined) entry.waiting = undefined;
  }

  return {
    attach(server) {
      keyed = server instanceof TlsServer;
      server.on('connection', onConnection);
      if (options.maxConnections !== undefined) {
        server.maxConnections = hardLimitOf(options.maxConnections);
        server.on('drop', (data?: { remoteAddress?: string }) =>
          options.onRefused?.('max_connections', data?.remoteAddress ?? ''),
        );
      }
      server.prependListener('request', heard);
      // Only beside a listener of its own: an 'upgrade' listener makes Node hand upgrades over.
      if (server.listenerCount('upgrade') > 0) server.prependListener('upgrade', heard);
    },
    get open() {
      return open;
    },
    // Still over: sockets that closed since its accept may have made room for it.
    overCapacity: (req) => entryOf(req.socket)?.over === true && open > (options.maxConnections ?? Infinity),
  };
}
