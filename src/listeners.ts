// The service's three listeners (SPEC "Listeners"): each plain or TLS as its *_tls keys say, the
// OpAMP one also trusting the agent CA's certificates (serverOptions.ts). The app opens them in its
// start order (OpAMP once what agents need is loaded, then the UI and telemetry) and closes them
// together.

import type { IncomingMessage, RequestListener, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from './io/config/schema.ts';
import { baseUrl, closeServer, createPlainServer, createTlsServer, listen } from './io/listen.ts';
import { serverTlsOptions } from './io/tls/serverOptions.ts';
import type { ListenerName, ListenersTls } from './io/tls/tlsMaterial.ts';

export type ListenerUrls = Record<ListenerName, string>;

export interface Listeners {
  /** Base URLs of the bound listeners; empty strings until each is open. */
  readonly urls: ListenerUrls;
  /** Binds `listener` to its configured address; `onUpgrade` takes its WebSocket upgrades. */
  open(
    listener: ListenerName,
    handler: RequestListener,
    onUpgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
  ): Promise<void>;
  /** Closes every listener; HTTP requests still in flight after `cutAfterMs` are cut. */
  close(cutAfterMs?: number): Promise<void>;
}

export function createListeners(
  addresses: Config['listeners'],
  tls: ListenersTls,
  agentCaPem: string | undefined,
): Listeners {
  const servers: Server[] = [];
  const urls: ListenerUrls = { opamp: '', ui: '', telemetry: '' };
  return {
    urls,
    async open(listener, handler, onUpgrade) {
      const material = tls[listener];
      const server = material
        ? createTlsServer(handler, serverTlsOptions(listener, material, agentCaPem))
        : createPlainServer(handler);
      if (onUpgrade) server.on('upgrade', onUpgrade);
      servers.push(await listen(server, addresses[listener]));
      urls[listener] = baseUrl(server, material ? 'https' : 'http');
    },
    async close(cutAfterMs) {
      await Promise.all(servers.map((s) => closeServer(s, cutAfterMs)));
    },
  };
}
