// The service's three listeners (SPEC "Listeners"): each plain or TLS as its *_tls keys say, the
// OpAMP one also trusting the agent CA's certificates (serverOptions.ts). The app opens them in its
// start order (OpAMP once what agents need is loaded, then the UI and telemetry) and closes them
// together. Every listener's sockets are guarded from accept (connectionGuard.ts: a first request
// within listeners.header_timeout), and a GET, HEAD or OPTIONS with a body is answered 400 before
// any route or upgrade sees it (bodilessMethods.ts); both are counted through `refused`.

import type { IncomingMessage, RequestListener, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from './io/config/schema.ts';
import { createConnectionGuard, type ConnectionGuard } from './io/connectionGuard.ts';
import { forbiddenBodyResponse, forbiddenBodyText, hasForbiddenBody } from './io/http/bodilessMethods.ts';
import {
  baseUrl,
  closeServer,
  createPlainServer,
  createTlsServer,
  defaultTimeouts,
  listen,
  type ListenerTimeouts,
} from './io/listen.ts';
import { serverTlsOptions } from './io/tls/serverOptions.ts';
import type { ListenerName, ListenersTls } from './io/tls/tlsMaterial.ts';

export type ListenerUrls = Record<ListenerName, string>;

/** Why a listener refused a connection or request before its routes. */
export type ListenerRefusal = 'request_timeout' | 'body_not_allowed' | 'max_connections';

export interface ListenerOptions {
  /** listeners.header_timeout: Node's headers timeout and the guard's first-request timer. */
  readonly headerTimeoutMs: number;
  /** Counts a refusal in the listener's own metric. */
  readonly refused: (listener: ListenerName, reason: ListenerRefusal, remoteAddr: string) => void;
}

export interface Listeners {
  /** Base URLs of the bound listeners; empty strings until each is open. */
  readonly urls: ListenerUrls;
  /**
   * Binds `listener` to its configured address; `onUpgrade` takes its WebSocket upgrades. `guard`
   * (the OpAMP listener's, which also counts opamp.max_connections) replaces the listener's own.
   */
  open(
    listener: ListenerName,
    handler: RequestListener,
    onUpgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
    guard?: ConnectionGuard,
  ): Promise<void>;
  /** Closes every listener; HTTP requests still in flight after `cutAfterMs` are cut. */
  close(cutAfterMs?: number): Promise<void>;
}

export function createListeners(
  addresses: Config['listeners'],
  tls: ListenersTls,
  agentCaPem: string | undefined,
  options: ListenerOptions,
): Listeners {
  const servers: Server[] = [];
  const urls: ListenerUrls = { opamp: '', ui: '', telemetry: '' };
  const timeouts: ListenerTimeouts = { ...defaultTimeouts, headersMs: options.headerTimeoutMs };
  return {
    urls,
    async open(listener, handler, onUpgrade, guard) {
      const material = tls[listener];
      const remoteAddr = (req: IncomingMessage) => req.socket.remoteAddress ?? '';
      const guarded: RequestListener = (req, res) => {
        if (!hasForbiddenBody(req)) return handler(req, res);
        options.refused(listener, 'body_not_allowed', remoteAddr(req));
        res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
        res.end(forbiddenBodyText);
      };
      const server = material
        ? createTlsServer(guarded, serverTlsOptions(listener, material, agentCaPem), timeouts)
        : createPlainServer(guarded, timeouts);
      if (onUpgrade)
        server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
          if (!hasForbiddenBody(req)) return onUpgrade(req, socket, head);
          options.refused(listener, 'body_not_allowed', remoteAddr(req));
          // Its body is not read; the socket goes once the answer is out (it has left Node's timeouts).
          socket.on('error', () => socket.destroy());
          socket.end(forbiddenBodyResponse, () => socket.destroy());
        });
      (
        guard ??
        createConnectionGuard({
          firstRequestMs: options.headerTimeoutMs,
          onRefused: (reason, addr) => options.refused(listener, reason, addr),
        })
      ).attach(server);
      servers.push(await listen(server, addresses[listener]));
      urls[listener] = baseUrl(server, material ? 'https' : 'http');
    },
    async close(cutAfterMs) {
      await Promise.all(servers.map((s) => closeServer(s, cutAfterMs)));
    },
  };
}
