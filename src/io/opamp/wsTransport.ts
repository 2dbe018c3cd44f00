// WebSocket transport: binary frames with the varint header, one handler call per frame, in order.
// Text frames and undecodable frames are counted as message errors and skipped; the connection stays
// open. A message larger than opamp.max_message_bytes closes the connection with 1009 (ws's
// maxPayload stops reading it; a header-less frame is checked after unframing). Liveness (idleSweep.ts):
// a socket that holds an agent is pinged when quiet for a heartbeat interval and terminated when it
// answers nothing; one that holds none is closed with 1000 after the idle timeout without a message.
// At shutdown every socket gets the close frame, and one that has not closed within the close timeout
// is terminated (closeAll): peers cannot hold the process.
// Replies to the frames of one socket read leave in one write: the socket is corked at the first
// reply and uncorked once the read's frames are handled (process.nextTick: ws handles every frame of
// a read before it returns), so an agent that keeps several messages in flight costs one syscall per
// read instead of one per reply. A push (a reply outside any read) is not held.
// When the handler answers with a promise (an id whose credential the store is asked about), the
// socket's later messages wait in order behind it; each is announced to the handler as it arrives
// (handler.ahead: a gateway's new ids are asked of the store together). Once maxWaiting messages or
// maxWaitingBytes wait, the service stops reading the socket (back-pressure: TCP holds the rest in
// the peer's buffers; svc_opamp_reads_paused_total) and reads again once half have been handled, so
// nothing is dropped and no socket is closed for being busy. A socket's waiting messages are bounded
// by those limits plus what one read from the socket already held.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SchedulerLike } from 'rxjs';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { ConnectionId } from '../../events/ids.ts';
import { admissionOf } from './admission.ts';
import { Connection, type Admission, type ConnectionIds, type OpampConnection } from './connection.ts';
import { frameHeaderBytes, unframe } from './framing.ts';
import type { HandleResult, OpampHandler, PendingResult, ProtocolObserver } from './handler.ts';
import { createIdleSweep, type IdleMark, type Verdict } from './idleSweep.ts';
import { peerOf } from './peer.ts';
import { closeWithin } from './wsShutdown.ts';

export interface WsTransport {
  /** The request's admission (admission.ts) travels on it to the connection. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open sockets (shutdown closes them with 1001 going away). */
  readonly sockets: ReadonlySet<WebSocket>;
  /**
   * Sends every open socket the close frame; those whose close has not completed within `timeoutMs`
   * are terminated. Resolves, once every socket is closed, with how many were terminated.
   */
  closeAll(code: number, reason: string, timeoutMs: number): Promise<number>;
}

/**
 * One ServerToAgent message, encoded after the framing header's room (a WsConnection's
 * replyHeadroom, zero: the header) so it goes as it is. With a tail (the remote config field shared
 * by many replies) it goes as two frames of one message, so the shared bytes are never copied per
 * agent (RFC 6455 fragmentation, which every WebSocket peer reassembles).
 */
function sendReply(ws: WebSocket, framed: Uint8Array, tail: Uint8Array | undefined): void {
  if (ws.readyState !== ws.OPEN) return;
  if (tail === undefined) {
    ws.send(framed);
    return;
  }
  ws.send(framed, { binary: true, fin: false });
  ws.send(tail, { binary: true, fin: true });
}

const uncork = (socket: Duplex): void => socket.uncork();

/** Messages that may wait behind one that waits for the credential store before reads pause. */
export const maxWaiting = 512;
/** Bytes of messages that may wait so before reads pause (a few large reports pause it sooner). */
export const maxWaitingBytes = 1 << 20;

/** A WebSocket's connection: the socket its replies are corked on, and pushes sent as replies are. */
class WsConnection extends Connection implements IdleMark {
  readonly ws: WebSocket;
  readonly socket: Duplex;
  /** For the idle sweep (idleSweep.ts). */
  spoke = false;
  ponged = false;
  heardAt = 0;
  aliveAt = 0;
  pingedAt: number | undefined = undefined;
  /** Messages that arrived while an earlier one waits for the handler's promise; undefined when none waits. */
  waiting: Uint8Array[] | undefined = undefined;
  /** The bytes of `waiting`'s messages. */
  waitingBytes = 0;
  /** Reads stopped until the waiting messages drain (back-pressure). */
  paused = false;

  constructor(
    ws: WebSocket,
    socket: Duplex,
    peer: { remoteAddr: string; tlsSubject: string | null },
    id: ConnectionId,
    admission: Admission | undefined,
  ) {
    super('ws', peer.remoteAddr, peer.tlsSubject, id, admission);
    this.ws = ws;
    this.socket = socket;
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  /** Replies are encoded after the framing header (framing.ts): the header is their first byte. */
  override get replyHeadroom(): number {
    return frameHeaderBytes;
  }

  send(message: Uint8Array, tail?: Uint8Array): void {
    sendReply(this.ws, message, tail);
  }
}

/**
 * When the WebSocket of a connection last answered (a message or a pong, as the idle sweep noted it),
 * or undefined for a connection that is not one of this transport's sockets. Persistence writes it as
 * the agent's alive time, so siblings keep a quiet agent connected while its socket here answers.
 */
export function socketAliveAt(connection: OpampConnection | undefined): number | undefined {
  return connection instanceof WsConnection ? connection.aliveAt : undefined;
}

const connectionOf = Symbol('opamp connection');
type Served = WebSocket & { [connectionOf]: WsConnection };

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

export function createWsTransport(
  handler: OpampHandler,
  observer: ProtocolObserver,
  options: {
    maxMessageBytes: number;
    /** The listener's connection ids (shared with its HTTP transport). */
    connectionIds: ConnectionIds;
    onConnection?: (ws: WebSocket, c: OpampConnection) => void;
    /** Sockets holding no agent and silent for longer than this are closed; no sweep when absent. */
    idleTimeoutMs?: number;
    /** Sockets holding an agent and quiet for this long are pinged (fleet.heartbeat_interval). */
    pingAfterMs?: number;
    /** Whether a connection holds an agent now; none is taken to when absent. */
    holdsAgent?: (c: OpampConnection) => boolean;
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
  /** Set by closeAll: no socket is upgraded any more. */
  let closing = false;
  /** The clock of the idle sweep; undefined when there is none. */
  const clock = options.idleTimeoutMs !== undefined ? options.scheduler : undefined;
  const idle =
    options.idleTimeoutMs !== undefined && clock !== undefined
      ? createIdleSweep(
          clock,
          { idleTimeoutMs: options.idleTimeoutMs, pingAfterMs: options.pingAfterMs },
          {
            sockets,
            markOf: (ws) => (ws as Served)[connectionOf],
            holdsAgent: (ws) => options.holdsAgent?.((ws as Served)[connectionOf]) ?? false,
            isOpen: (ws) => ws.readyState === ws.OPEN,
            act,
          },
        )
      : undefined;

  function act(ws: WebSocket, verdict: Exclude<Verdict, 'keep'>): void {
    const connection = (ws as Served)[connectionOf];
    // Paused by the service, the socket cannot be heard (its pong and messages wait unread): it is
    // neither idle nor gone, and is judged afresh once read again. Its ping still goes out.
    if (connection.paused && verdict !== 'ping') return void (connection.pingedAt = undefined);
    if (verdict === 'ping') ws.ping();
    else if (verdict === 'close_idle') ws.close(1000, 'idle for longer than the eviction threshold');
    // No pong: the peer is gone, and a close frame would wait for an answer that never comes.
    else ws.terminate();
  }

  function onPong(this: WebSocket): void {
    (this as Served)[connectionOf].ponged = true;
  }

  // One set of listeners for every socket (ws calls them with the WebSocket as `this`), which finds
  // its connection on the WebSocket: no closures per connection.
  function onMessage(this: WebSocket, data: RawData, isBinary: boolean): void {
    const ws = this as Served;
    ws[connectionOf].spoke = true;
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
    const connection = ws[connectionOf];
    const waiting = connection.waiting;
    if (waiting === undefined) return answer(connection, handler.handle(connection, unframed.payload));
    waiting.push(unframed.payload);
    connection.waitingBytes += unframed.payload.length;
    handler.ahead?.(connection, unframed.payload);
    if (!connection.paused && (waiting.length >= maxWaiting || connection.waitingBytes >= maxWaitingBytes))
      pause(connection);
  }

  /** Stops reading the socket: what ws has read already still arrives, nothing more until resume. */
  function pause(connection: WsConnection): void {
    connection.paused = true;
    connection.ws.pause();
    observer.readsPaused?.();
  }

  /** Reads again once the waiting messages are down to half their bounds. */
  function resumeIfDrained(connection: WsConnection): void {
    if (!connection.paused) return;
    const waiting = connection.waiting?.length ?? 0;
    if (waiting > maxWaiting / 2 || connection.waitingBytes > maxWaitingBytes / 2) return;
    connection.paused = false;
    connection.ws.resume();
  }

  /** Sends a result now, or once its promise settles; later messages wait for it (in order). */
  function answer(connection: WsConnection, result: PendingResult): void {
    if (!(result instanceof Promise)) return reply(connection, result);
    connection.waiting ??= [];
    result.then(
      (settled) => {
        reply(connection, settled);
        drain(connection);
      },
      // The handler's promises do not reject (a failing store is a refusal); if one did, the
      // socket's order could not be kept.
      () => connection.close(1011, 'internal error'),
    );
  }

  /** Handles what waited, in order, until one waits again (the rest keep waiting behind it). */
  function drain(connection: WsConnection): void {
    const waiting = connection.waiting ?? [];
    connection.waiting = undefined;
    let next = 0;
    while (next < waiting.length && !connection.closed) {
      const payload = waiting[next++]!;
      connection.waitingBytes -= payload.length;
      const result = handler.handle(connection, payload);
      if (result instanceof Promise) {
        connection.waiting = waiting.slice(next);
        resumeIfDrained(connection);
        return answer(connection, result);
      }
      reply(connection, result);
    }
    connection.waitingBytes = 0;
    resumeIfDrained(connection);
  }

  function reply(connection: WsConnection, result: HandleResult): void {
    const { ws, socket } = connection;
    if (result.reply === null || ws.readyState !== ws.OPEN) return;
    if (socket.writableCorked === 0) {
      socket.cork();
      process.nextTick(uncork, socket);
    }
    sendReply(ws, result.reply, result.ok ? result.tail : undefined);
    // The answer to a CSR follows the reply as its own message, whenever it is ready.
    if (result.ok && result.after !== undefined)
      void result.after.then((message) => message && connection.send(message));
  }

  function onError(error: Error & { code?: string }): void {
    // 'close' follows; errors such as an oversize frame are reported through the close code.
    if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') observer.messageFailed('message too large');
  }

  function onClose(this: WebSocket): void {
    const ws = this as Served;
    sockets.delete(ws);
    idle?.closed();
    handler.closed(ws[connectionOf]);
  }

  function serve(ws: WebSocket, req: IncomingMessage, socket: Duplex): void {
    const admission = admissionOf(req);
    const connection = new WsConnection(ws, socket, peerOf(req), options.connectionIds(), admission);
    (ws as Served)[connectionOf] = connection;
    sockets.add(ws);
    options.onConnection?.(ws, connection);
    if (clock !== undefined) connection.heardAt = connection.aliveAt = clock.now();
    idle?.opened();
    ws.on('message', onMessage);
    ws.on('pong', onPong);
    ws.on('error', onError);
    ws.on('close', onClose);
  }

  return {
    upgrade(req, socket, head) {
      // An upgrade admitted while shutdown began (its credential was being checked) is not served:
      // closeAll would not see it, and nothing would bound its close.
      if (closing) return void socket.destroy();
      wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req, socket));
    },
    sockets,
    closeAll: (code, reason, timeoutMs) => {
      closing = true;
      return closeWithin(sockets, code, reason, timeoutMs);
    },
  };
}
