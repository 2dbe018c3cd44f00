// Plain-HTTP transport: POST one AgentToServer with Content-Type exactly application/x-protobuf,
// optionally gzip-encoded; the reply is one ServerToAgent, gzip-encoded when Accept-Encoding allows
// and it is at least gzipMinBytes long.
// Bodies are limited after decompression (413, no retry hint): a gzip bomb is cut off at the limit.
// A request that presented no credential gets a lower bound and a short time for its body
// (UnauthenticatedBody): past either it is answered (413, 408) and its socket closed a second later
// at most, so a crowd of unauthenticated senders holds neither memory nor sockets for the whole
// request timeout.
// Every request pays for this path, so it takes no promise, no copy and no header object where the
// request does not need one (bodyReader.ts; the reply's headers are one flat array): a plain body and
// a handler that answers at once are served within the body's 'end' event.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { gzipSync, gunzip } from 'node:zlib';
import { admissionOf } from './admission.ts';
import { BodyTooLarge, BodyTooSlow, readBody } from './bodyReader.ts';
import { createConnection, type ConnectionIds } from './connection.ts';
import type { HandleResult } from './handleResult.ts';
import type { OpampHandler, ProtocolObserver } from './handler.ts';
import { peerOf, type Peer } from './peer.ts';

export const protobufContentType = 'application/x-protobuf';

/** How long the socket of a refused unauthenticated body stays for its client to read the answer. */
const answerLingerMs = 1000;

/** opamp.max_unauthenticated_message_bytes and opamp.unauthenticated_body_timeout. */
export interface UnauthenticatedBody {
  readonly bytes: number;
  readonly timeoutMs: number;
}

/**
 * Replies shorter than this go as they are, whatever Accept-Encoding says: gzip makes a reply of a
 * few dozen bytes (nearly every status reply) longer, and costs more CPU than the rest of its
 * request. Go's HTTP client (opamp-go's agents) asks for gzip on every request.
 */
export const gzipMinBytes = 1024;

/** gzip when the client accepts it: "gzip" or "*" with q > 0 (as opamp-go decides). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.trim().split(';');
    const name = coding.trim().toLowerCase();
    if (name !== 'gzip' && name !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

export interface HttpTransport {
  /**
   * The request's admission (admission.ts) travels on it to the connection. `onError` gets what
   * went wrong after the request was taken (a 500 is answered, or the response cut).
   */
  serve(
    req: IncomingMessage,
    res: ServerResponse,
    unauthenticated: UnauthenticatedBody | undefined,
    onError: (error: unknown) => void,
  ): void;
}

function fail(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close', ...headers });
  res.end(`${message}\n`);
}

/**
 * The peer of each plain socket, for its later keep-alive requests: its address does not change. A
 * TLS socket's certificate is read again for each request, as the handshake may be renegotiated.
 */
const plainPeers = new WeakMap<object, Peer>();

function plainPeerOf(req: IncomingMessage): Peer {
  const socket = req.socket;
  if ((socket as TLSSocket).encrypted === true) return peerOf(req);
  let peer = plainPeers.get(socket);
  if (peer === undefined) plainPeers.set(socket, (peer = peerOf(req)));
  return peer;
}

/** An error after the request was taken: a 500 while nothing is sent, else the response is cut. */
function broken(res: ServerResponse, error: unknown, onError: (error: unknown) => void): void {
  onError(error);
  if (!res.headersSent) {
    res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('internal error\n');
  } else res.destroy();
}

export function createHttpTransport(
  handler: OpampHandler,
  observer: ProtocolObserver,
  options: { maxMessageBytes: number; connectionIds: ConnectionIds },
): HttpTransport {
  function refuseBody(
    req: IncomingMessage,
    res: ServerResponse,
    error: unknown,
    limit: number,
    unauthenticated: UnauthenticatedBody | undefined,
  ): void {
    const tooLarge =
      error instanceof BodyTooLarge || (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    const tooSlow = error instanceof BodyTooSlow;
    observer.messageFailed(tooLarge ? 'message too large' : tooSlow ? 'body too slow' : 'unreadable body');
    // The answer closes the connection (Node discards what more of the body arrives); an
    // unauthenticated sender gets a moment to read it, not the request timeout.
    if (unauthenticated !== undefined)
      res.once('finish', () => setTimeout(() => req.socket.destroy(), answerLingerMs).unref());
    if (tooLarge) {
      const without = unauthenticated === undefined ? '' : ' without a credential';
      fail(res, 413, `message larger than ${limit} bytes${without}`);
    } else if (tooSlow) fail(res, 408, 'request body not received in time');
    else fail(res, 400, 'request body could not be read or decompressed');
  }

  /** The body's message through the handler, answered now when the handler answers now. */
  function handleBody(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    onError: (e: unknown) => void,
  ) {
    const peer = plainPeerOf(req);
    const connection = createConnection(
      'http',
      peer.remoteAddr,
      peer.tlsSubject,
      options.connectionIds(),
      admissionOf(req),
    );
    const result = handler.handle(connection, body);
    if (result instanceof Promise)
      result.then((r) => answer(req, res, r)).catch((error: unknown) => broken(res, error, onError));
    else {
      const pending = answer(req, res, result);
      if (pending !== undefined) pending.catch((error: unknown) => broken(res, error, onError));
    }
  }

  /** Writes the reply; a promise only while a CSR's answer is awaited (certificateOffer.ts). */
  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    result: HandleResult,
  ): Promise<void> | undefined {
    if (!result.ok) {
      fail(res, result.status ?? 400, result.error, result.headers);
      return undefined;
    }
    if (result.after !== undefined)
      return result.after.then((after) => {
        // HTTP carries one reply: the answer to a CSR joins it. Protobuf merges concatenated
        // messages, so its instance_uid (the same) and connection_settings add to the reply.
        const tail =
          after === undefined
            ? result.tail
            : result.tail === undefined
              ? after
              : Buffer.concat([result.tail, after]);
        write(req, res, result.reply, tail);
      });
    write(req, res, result.reply, result.tail);
    return undefined;
  }

  function write(req: IncomingMessage, res: ServerResponse, reply: Uint8Array, tail: Uint8Array | undefined) {
    const length = reply.length + (tail === undefined ? 0 : tail.length);
    if (length >= gzipMinBytes && acceptsGzip(req.headers['accept-encoding'])) {
      const zipped = gzipSync(tail === undefined ? reply : Buffer.concat([reply, tail]));
      res.writeHead(200, [
        'Content-Type',
        protobufContentType,
        'Content-Encoding',
        'gzip',
        'Content-Length',
        String(zipped.length),
      ]);
      res.end(zipped);
      return;
    }
    res.writeHead(200, ['Content-Type', protobufContentType, 'Content-Length', String(length)]);
    if (tail === undefined) res.end(reply);
    else {
      // The shared remote config field is written as it is, not copied into one buffer per agent.
      res.write(reply);
      res.end(tail);
    }
  }

  function serve(
    req: IncomingMessage,
    res: ServerResponse,
    unauthenticated: UnauthenticatedBody | undefined,
    onError: (error: unknown) => void,
  ): void {
    const limit =
      unauthenticated === undefined
        ? options.maxMessageBytes
        : Math.min(options.maxMessageBytes, unauthenticated.bytes);
    readBody(req, limit, unauthenticated?.timeoutMs, (error, raw) => {
      if (error !== undefined) return refuseBody(req, res, error, limit, unauthenticated);
      const encoding = req.headers['content-encoding'];
      try {
        if (encoding === undefined || encoding.toLowerCase() !== 'gzip')
          return handleBody(req, res, raw!, onError);
      } catch (thrown) {
        return broken(res, thrown, onError);
      }
      gunzip(raw!, { maxOutputLength: limit }, (gzipError, body) => {
        if (gzipError) return refuseBody(req, res, gzipError, limit, unauthenticated);
        try {
          handleBody(req, res, body, onError);
        } catch (thrown) {
          broken(res, thrown, onError);
        }
      });
    });
  }

  return { serve };
}
