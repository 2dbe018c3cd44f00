// WebSocket transport: binary frames with the varint header, one handler call per frame, in order.
// Text frames and undecodable frames are counted as message errors and skipped; the connection stays
// open. A message larger than opamp.max_message_bytes closes the connection with 1009 (ws's
// maxPayload stops reading it; a header-less frame is checked after unframing). A socket that sends
// no message for longer than the idle timeout (the eviction threshold) is closed with 1000.
// Replies to the frames of one socket read leave in one write: the socket is corked at the first
// reply and uncorked once the read's frames are handled (process.nextTick: ws handles every frame of
// a read before it returns), so an agent that keeps several messages in flight costs one syscall per
// read instead of one per reply. A push (a reply outside any read) is not held.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SchedulerLike } from 'rxjs';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { createConnection, type OpampConnection } from './connection.ts';
import { frame, unframe } from './framing.ts';
import type { OpampHandler, ProtocolObserver } from './handler.ts';
import { createIdleSweep } from './idleSweep.ts';
import { peerOf } from './peer.ts';

export interface WsTransport {
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open sockets (shutdown closes them with 1001 going away). */
  readonly sockets: ReadonlySet<WebSocket>;
  closeAll(code: number, reason: string): void;
}

/**
 * One ServerToAgent message. With a tail (the remote config field shared by many replies) it goes as
 * two frames of one message, so the shared bytes are never copied per agent (RFC 6455 fragmentation,
 * which every WebSocket peer reassembles).
 */
function sendReply(ws: WebSocket, message: Uint8Array, tail: Uint8Array | undefined): void {
  if (ws.readyState !== ws.OPEN) return;
  if (tail === undefined) {
    ws.send(frame(message));
    return;
  }
  ws.send(frame(message), { binary: true, fin: false });
  ws.send(tail, { binary: true, fin: true });
}

const uncork = (socket: Duplex): void => socket.uncork();

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

export function createWsTransport(
  handler: OpampHandler,
  observer: ProtocolObserver,
  options: {
    maxMessageBytes: number;
    onConnection?: (ws: WebSocket, c: OpampConnection) => void;
    idleTimeoutMs?: number;
    scheduler?: SchedulerLike;
  },
): WsTransport {
  // +1: the one-byte varint header (only 0 is defined) is not part of the message size limit.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes + 1,
    perMessageDeflate: false,
    // The transport keeps its own set of sockets; ws need not keep a second one.
    clientTracking: false,
  });
  const sockets = new Set<WebSocket>();
  const idle =
    options.idleTimeoutMs !== undefined && options.scheduler
      ? createIdleSweep(options.scheduler, options.idleTimeoutMs)
      : undefined;

  function serve(ws: WebSocket, req: IncomingMessage, socket: Duplex): void {
    const peer = peerOf(req);
    const connection = createConnection('ws', peer.remoteAddr, peer.tlsSubject);
    connection.send = (message, tail) => sendReply(ws, message, tail);
    sockets.add(ws);
    options.onConnection?.(ws, connection);
    idle?.track(ws);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      idle?.touch(ws);
      if (!isBinary) {
        observer.messageFailed('text frame');
        return;
      }
      const unframed = unframe(toBytes(data));
      if (!unframed.ok) {
        observer.messageFailed(unframed.reason);
        return;
      }
      if (unframed.payload.length > options.maxMessageBytes) {
        observer.messageFailed('message too large');
        ws.close(1009, 'message too large');
        return;
      }
      const result = handler.handle(connection, unframed.payload);
      if (result.reply === null || ws.readyState !== ws.OPEN) return;
      if (socket.writableCorked === 0) {
        socket.cork();
        process.nextTick(uncork, socket);
      }
      sendReply(ws, result.reply, result.ok ? result.tail : undefined);
    });
    ws.on('error', (error: Error & { code?: string }) => {
      // 'close' follows; errors such as an oversize frame are reported through the close code.
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') observer.messageFailed('message too large');
    });
    ws.on('close', () => {
      sockets.delete(ws);
      idle?.untrack(ws);
      handler.closed(connection);
    });
  }

  return {
    upgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req, socket));
    },
    sockets,
    closeAll(code, reason) {
      for (const ws of sockets) ws.close(code, reason);
    },
  };
}
