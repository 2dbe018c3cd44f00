// WebSocket transport: binary frames with the varint header, one handler call per frame, in order.
// Text frames and undecodable frames are counted as message errors and skipped; the connection stays
// open. Oversized frames close the connection with 1009 (ws's maxPayload).

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { createConnection, type OpampConnection } from './connection.ts';
import { frame, unframe } from './framing.ts';
import type { OpampHandler, ProtocolObserver } from './handler.ts';
import { peerOf } from './peer.ts';

export interface WsTransport {
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open sockets (shutdown closes them with 1001 going away). */
  readonly sockets: ReadonlySet<WebSocket>;
  closeAll(code: number, reason: string): void;
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

export function createWsTransport(
  handler: OpampHandler,
  observer: ProtocolObserver,
  options: { maxMessageBytes: number; onConnection?: (ws: WebSocket, c: OpampConnection) => void },
): WsTransport {
  // +10: the varint header is not part of the message size limit's protobuf bytes.
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes + 10, perMessageDeflate: false });
  const sockets = new Set<WebSocket>();

  function serve(ws: WebSocket, req: IncomingMessage): void {
    const peer = peerOf(req);
    const connection = createConnection('ws', peer.remoteAddr, peer.tlsSubject);
    sockets.add(ws);
    options.onConnection?.(ws, connection);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (!isBinary) {
        observer.messageFailed('text frame');
        return;
      }
      const unframed = unframe(toBytes(data));
      if (!unframed.ok) {
        observer.messageFailed(unframed.reason);
        return;
      }
      const result = handler.handle(connection, unframed.payload);
      if (ws.readyState === ws.OPEN) ws.send(frame(result.reply));
    });
    ws.on('error', () => {
      // 'close' follows; errors such as an oversize frame are reported through the close code.
    });
    ws.on('close', () => {
      sockets.delete(ws);
      handler.closed(connection);
    });
  }

  return {
    upgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req));
    },
    sockets,
    closeAll(code, reason) {
      for (const ws of sockets) ws.close(code, reason);
    },
  };
}
