// Listeners: parse "host:port" / ":port" addresses and bind HTTP servers to them.

import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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

export function createPlainServer(handler: RequestListener): Server {
  return createServer(handler);
}

/** "http://127.0.0.1:port" of a bound server (tests and logs). */
export function baseUrl(server: Server, scheme = 'http'): string {
  const a = server.address() as AddressInfo;
  const host = a.family === 'IPv6' ? (a.address === '::' ? '127.0.0.1' : `[${a.address}]`) : a.address === '0.0.0.0' ? '127.0.0.1' : a.address;
  return `${scheme}://${host}:${a.port}`;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
