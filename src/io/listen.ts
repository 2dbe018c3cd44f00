// Listeners: parse "host:port" / ":port" addresses and bind HTTP servers to them.

import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TlsOptions } from 'node:tls';

/**
 * Slow or idle clients cannot hold a listener's sockets forever: headers must arrive within
 * `headersMs`, a whole request (body included) within `requestMs`, and an idle keep-alive socket is
 * closed after `keepAliveMs`. `checkEveryMs` is how often Node looks for expired requests.
 */
export interface ListenerTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  readonly keepAliveMs: number;
  readonly checkEveryMs: number;
}

export const defaultTimeouts: ListenerTimeouts = {
  headersMs: 10_000,
  requestMs: 60_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
};

function serverOptions(t: ListenerTimeouts) {
  return {
    headersTimeout: t.headersMs,
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    connectionsCheckingInterval: t.checkEveryMs,
  };
}

export function parseAddress(address: string): { host: string | undefined; port: number } {
  const i = address.lastIndexOf(':');
  let host = address.slice(0, i);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? undefined : host, port: Number(address.slice(i + 1)) };
}

/** Starts listening; resolves with the server once bound (rejects on EADDRINUSE and the like). */
export function listen(server: Server, address: string): Promise<Server> {
  const { host, port } = parseAddress(address);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

export function createPlainServer(
  handler: RequestListener,
  timeouts: ListenerTimeouts = defaultTimeouts,
): Server {
  return createServer(serverOptions(timeouts), handler);
}

/** An HTTPS server (an http.Server subclass, so upgrades and closing work the same). */
export function createTlsServer(
  handler: RequestListener,
  tls: TlsOptions,
  timeouts: ListenerTimeouts = defaultTimeouts,
): Server {
  return createHttpsServer({ ...tls, ...serverOptions(timeouts) }, handler);
}

/** "http://127.0.0.1:port" of a bound server (tests and logs). */
export function baseUrl(server: Server, scheme = 'http'): string {
  const a = server.address() as AddressInfo;
  const host =
    a.family === 'IPv6'
      ? a.address === '::'
        ? '127.0.0.1'
        : `[${a.address}]`
      : a.address === '0.0.0.0'
        ? '127.0.0.1'
        : a.address;
  return `${scheme}://${host}:${a.port}`;
}

/**
 * Stops accepting and resolves once every connection has ended. With `cutAfterMs`, requests still
 * in flight then are cut (shutdown is bounded by configuration, not by clients); upgraded sockets are
 * their transport's to close.
 */
export function closeServer(server: Server, cutAfterMs?: number): Promise<void> {
  return new Promise((resolve) => {
    const cut =
      cutAfterMs === undefined ? undefined : setTimeout(() => server.closeAllConnections(), cutAfterMs);
    server.close(() => {
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}
