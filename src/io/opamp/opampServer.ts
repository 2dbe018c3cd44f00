// The OpAMP listener's request routing: /v1/opamp takes WebSocket upgrades and plain-HTTP POSTs;
// any other path is 501 Not Implemented. While draining, new connections get 503.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { OpampHandler, ProtocolObserver } from './handler.ts';
import { createHttpTransport, protobufContentType } from './httpTransport.ts';
import { createWsTransport, type WsTransport } from './wsTransport.ts';

export const opampPath = '/v1/opamp';

export interface OpampServer {
  onRequest(req: IncomingMessage, res: ServerResponse): void;
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Refuse new connections (503) from now on. */
  startDraining(): void;
  readonly ws: WsTransport;
}

const pathOf = (req: IncomingMessage): string => (req.url ?? '/').split('?', 1)[0] ?? '/';

function rawResponse(socket: Duplex, status: number, text: string, extra = ''): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`);
}

export function createOpampServer(
  handler: OpampHandler,
  observer: ProtocolObserver,
  options: { maxMessageBytes: number; onError: (error: unknown) => void },
): OpampServer {
  const ws = createWsTransport(handler, observer, options);
  const http = createHttpTransport(handler, observer, options);
  let draining = false;

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    const reply = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
      res.end(`${text}\n`);
    };
    if (pathOf(req) !== opampPath) return reply(501, 'Not Implemented');
    if (draining) return reply(503, 'draining', { 'Retry-After': '30', Connection: 'close' });
    if (req.method !== 'POST') return reply(405, 'use a WebSocket upgrade or POST', { Allow: 'GET, POST' });
    if (req.headers['content-type'] !== protobufContentType)
      return reply(415, `Content-Type must be exactly ${protobufContentType}`);
    http.serve(req, res).catch((error: unknown) => {
      options.onError(error);
      if (!res.headersSent) reply(500, 'internal error');
      else res.destroy();
    });
  }

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    if (pathOf(req) !== opampPath) return rawResponse(socket, 501, 'Not Implemented');
    if (draining) return rawResponse(socket, 503, 'Service Unavailable', 'Retry-After: 30\r\n');
    ws.upgrade(req, socket, head);
  }

  return {
    onRequest,
    onUpgrade,
    startDraining: () => {
      draining = true;
    },
    ws,
  };
}
