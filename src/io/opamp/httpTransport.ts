// Plain-HTTP transport: POST one AgentToServer with Content-Type exactly application/x-protobuf,
// optionally gzip-encoded; the reply is one ServerToAgent, gzip-encoded when Accept-Encoding allows.
// Bodies are limited after decompression (413, no retry hint): a gzip bomb is cut off at the limit.
// A request that presented no credential gets a lower bound and a short time for its body
// (UnauthenticatedBody): past either it is answered (413, 408) and its socket closed a second later
// at most, so a crowd of unauthenticated senders holds neither memory nor sockets for the whole
// request timeout.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync, gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { admissionOf } from './admission.ts';
import { createConnection, type ConnectionIds } from './connection.ts';
import type { OpampHandler, ProtocolObserver } from './handler.ts';
import { peerOf } from './peer.ts';

const gunzipAsync = promisify(gunzip);
export const protobufContentType = 'application/x-protobuf';

class BodyTooLarge extends Error {}
class BodyTooSlow extends Error {}

/** How long the socket of a refused unauthenticated body stays for its client to read the answer. */
const answerLingerMs = 1000;

/** opamp.max_unauthenticated_message_bytes and opamp.unauthenticated_body_timeout. */
export interface UnauthenticatedBody {
  readonly bytes: number;
  readonly timeoutMs: number;
}

function readBody(req: IncomingMessage, limit: number, timeoutMs?: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      reject(new BodyTooLarge());
      return;
    }
    if (timeoutMs !== undefined) {
      const timer = setTimeout(() => {
        req.removeAllListeners('data');
        reject(new BodyTooSlow());
      }, timeoutMs);
      req.once('close', () => clearTimeout(timer));
      req.once('end', () => clearTimeout(timer));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

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
  /** The request's admission (admission.ts) travels on it to the connection. */
  serve(req: IncomingMessage, res: ServerResponse, unauthenticated?: UnauthenticatedBody): Promise<void>;
}

export function createHttpTransport(
  handler: OpampHandler,
  observer: ProtocolObserver,
  options: { maxMessageBytes: number; connectionIds: ConnectionIds },
): HttpTransport {
  function fail(
    res: ServerResponse,
    status: number,
    message: string,
    headers: Readonly<Record<string, string>> = {},
  ): void {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close', ...headers });
    res.end(`${message}\n`);
  }

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    unauthenticated?: UnauthenticatedBody,
  ): Promise<void> {
    const limit = Math.min(options.maxMessageBytes, unauthenticated?.bytes ?? Infinity);
    let body: Buffer;
    try {
      const raw = await readBody(req, limit, unauthenticated?.timeoutMs);
      const encoding = (req.headers['content-encoding'] ?? '').toLowerCase();
      body = encoding === 'gzip' ? await gunzipAsync(raw, { maxOutputLength: limit }) : raw;
    } catch (error) {
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
      return;
    }
    const peer = peerOf(req);
    const id = options.connectionIds();
    const admission = admissionOf(req);
    const connection = createConnection('http', peer.remoteAddr, peer.tlsSubject, id, admission);
    const result = await handler.handle(connection, body);
    if (!result.ok) {
      fail(res, result.status ?? 400, result.error, result.headers);
      return;
    }
    const headers: Record<string, string> = { 'Content-Type': protobufContentType };
    let { reply, tail } = result;
    // HTTP carries one reply: the answer to a CSR joins it (certificateOffer.ts). Protobuf merges
    // concatenated messages, so its instance_uid (the same) and connection_settings add to the reply.
    const after = result.after && (await result.after);
    if (after !== undefined) tail = tail === undefined ? after : Buffer.concat([tail, after]);
    if (acceptsGzip(req.headers['accept-encoding'])) {
      reply = gzipSync(tail === undefined ? reply : Buffer.concat([reply, tail]));
      tail = undefined;
      headers['Content-Encoding'] = 'gzip';
    }
    headers['Content-Length'] = String(reply.length + (tail?.length ?? 0));
    res.writeHead(200, headers);
    // The shared remote config field is written as it is, not copied into one buffer per agent.
    if (tail !== undefined) res.write(reply);
    res.end(tail ?? reply);
  }

  return { serve };
}
