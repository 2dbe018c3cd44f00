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
 * addresses, which name one open TCP connection of the listener.
 */
const keyOf = (s: Socket): string => `${s.localAddress}|${s.localPort}|${s.remoteAddress}|${s.remotePort}`;

/** Sockets held at most: the limit, and room to answer 503 to a tenth more (at least 16). */
export const hardLimitOf = (maxConnections: number): number =>
  maxConnections + Math.max(16, Math.ceil(maxConnections / 10));

interface Accepted {
  readonly over: boolean;
  timer: NodeJS.Timeout | undefined;
}

export function createConnectionGuard(options: ConnectionGuardOptions): ConnectionGuard {
  const accepted = new Map<string, Accepted>();
  /**
   * Each request's socket after its first request: a keep-alive socket's later requests find their
   * entry without building its key again (null: accepted before the guard was on).
   */
  const heardOn = new WeakMap<Socket, Accepted | null>();
  let open = 0;

  function onConnection(socket: Socket): void {
    const key = keyOf(socket);
    const max = options.maxConnections;
    const entry: Accepted = { over: max !== undefined && open >= max, timer: undefined };
    open++;
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      options.onRefused?.('request_timeout', socket.remoteAddress ?? '');
      socket.destroy();
    }, options.firstRequestMs).unref();
    accepted.set(key, entry);
    socket.once('close', () => {
      open--;
      if (entry.timer !== undefined) clearTimeout(entry.timer);
      if (accepted.get(key) === entry) accepted.delete(key);
    });
  }

  /** The socket asked something: the first-request timer has done its work. */
  function heard(req: IncomingMessage): void {
    const socket = req.socket;
    if (heardOn.has(socket)) return;
    const entry = accepted.get(keyOf(socket));
    heardOn.set(socket, entry ?? null);
    if (entry?.timer === undefined) return;
    clearTimeout(entry.timer);
    entry.timer = undefined;
  }

  return {
    attach(server) {
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
    overCapacity: (req) =>
      (heardOn.get(req.socket) ?? accepted.get(keyOf(req.socket)))?.over === true &&
      open > (options.maxConnections ?? Infinity),
  };
}
