// The OpAMP listener's request routing: /v1/opamp takes WebSocket upgrades and plain-HTTP POSTs;
// any other path is 501 Not Implemented. While draining, new connections get 503.
// opamp.max_connections counts every socket from accept (the listener's connection guard,
// `overCapacity`; without one, open WebSockets plus plain-HTTP requests in flight): a request or
// upgrade on a socket beyond it gets 503 with Retry-After, and connections already open keep working.
// A plain-HTTP request that presented no credential has its body bounded by `unauthenticated`
// (opamp.max_unauthenticated_message_bytes, opamp.unauthenticated_body_timeout).
// With enrollment tokens configured (enrollment.ts), an upgrade or request without a known token
// gets 401 with `WWW-Authenticate: Bearer` before anything else of it is read; so does one presenting
// a revoked agent certificate (admission.ts, which also names the credential of every connection).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SchedulerLike } from 'rxjs';
import {
  admissionOf,
  attachAdmission,
  createAdmission,
  type AdmissionRefusal,
  type AdmissionResult,
} from './admission.ts';
import { createConnectionIds, type OpampConnection } from './connection.ts';
import type { Enrollment } from './enrollment.ts';
import type { OpampHandler, ProtocolObserver } from './handler.ts';
import { createHttpTransport, protobufContentType, type UnauthenticatedBody } from './httpTransport.ts';
import { createWsTransport, type WsTransport } from './wsTransport.ts';

export const opampPath = '/v1/opamp';

/** Why the listener refused a connection before any message (svc_opamp_refused_total{reason}). */
export type OpampRefusal = AdmissionRefusal | 'max_connections';

export interface OpampServer {
  onRequest(req: IncomingMessage, res: ServerResponse): void;
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Refuse new connections (503) from now on. */
  startDraining(): void;
  readonly ws: WsTransport;
}

const refusalText: Readonly<Record<Exclude<AdmissionRefusal, 'store_unavailable'>, string>> = {
  missing_credential: 'a bearer token is required',
  unknown_credential: 'unknown token',
  revoked: 'this agent certificate is revoked',
  certificate_unrecorded: 'this agent certificate is not on record: enroll again with a token',
};

/** Seconds a refused client should wait (draining, or at max_connections). */
const retryAfterSeconds = '30';

const pathOf = (req: IncomingMessage): string => {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};

/** How long a refused upgrade's socket is kept for its client to read the answer and hang up. */
const refusedLingerMs = 1000;

/**
 * Refuses an upgrade with a bare HTTP response; a reset while writing it only ends the socket. The
 * socket has left the HTTP server and its timeouts: a client that never hangs up would hold it (and
 * a slot of opamp.max_connections) forever, so it is destroyed after `refusedLingerMs`.
 */
function rawResponse(socket: Duplex, status: number, text: string, extra = ''): void {
  socket.on('error', () => socket.destroy());
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), refusedLingerMs).unref();
  socket.once('close', () => clearTimeout(linger));
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`);
}

export function createOpampServer(
  handler: OpampHandler,
  observer: ProtocolObserver,
  options: {
    maxMessageBytes: number;
    onError: (error: unknown) => void;
    /** opamp.max_connections; unlimited when absent. */
    maxConnections?: number;
    /** The request's socket was accepted beyond opamp.max_connections (connectionGuard.ts). */
    overCapacity?: (req: IncomingMessage) => boolean;
    /** The body bound of a plain-HTTP request without a credential; max_message_bytes when absent. */
    unauthenticated?: UnauthenticatedBody;
    /** WebSockets holding no agent and silent for longer than this are closed; never when absent. */
    idleTimeoutMs?: number;
    /** WebSockets holding an agent are pinged when quiet this long (wsTransport.ts). */
    pingAfterMs?: number;
    holdsAgent?: (connection: OpampConnection) => boolean;
    scheduler?: SchedulerLike;
    /** Agents' enrollment tokens; every request is let in when absent (and no `admit`). */
    enrollment?: Enrollment;
    /** Who may connect, with what credential (admission.ts); made of `enrollment` when absent. */
    admit?: (req: IncomingMessage) => AdmissionResult | Promise<AdmissionResult>;
    /** A request or upgrade refused (log/metric hook); never given the credential itself. */
    onRefused?: (reason: OpampRefusal, remoteAddr: string) => void;
  },
): OpampServer {
  const transportOptions = { ...options, connectionIds: createConnectionIds() };
  const ws = createWsTransport(handler, observer, transportOptions);
  const http = createHttpTransport(handler, observer, transportOptions);
  let draining = false;
  /** HTTP requests until their response is done (open WebSockets are the transport's sockets). */
  let httpInFlight = 0;
  const atCapacity = (req: IncomingMessage): boolean => {
    const over = options.overCapacity
      ? options.overCapacity(req)
      : options.maxConnections !== undefined && ws.sockets.size + httpInFlight >= options.maxConnections;
    if (!over) return false;
    options.onRefused?.('max_connections', req.socket.remoteAddress ?? '');
    return true;
  };
  const admit =
    options.admit ?? createAdmission({ enrollment: options.enrollment, clientCa: false, now: Date.now });
  /** Admits the request (its admission then travels on it), or counts and names its refusal. */
  const refusalOf = (req: IncomingMessage, result: AdmissionResult): AdmissionRefusal | undefined => {
    if (result.ok) {
      attachAdmission(req, result.admission);
      return undefined;
    }
    options.onRefused?.(result.reason, req.socket.remoteAddress ?? '');
    return result.reason;
  };
  /** Admission is synchronous but for an agent certificate, whose revocation the store knows. */
  const whenAdmitted = (
    req: IncomingMessage,
    then: (refusal: AdmissionRefusal | undefined) => void,
  ): void => {
    const result = admit(req);
    if (!(result instanceof Promise)) return then(refusalOf(req, result));
    result
      .catch((error: unknown): AdmissionResult => {
        options.onError(error);
        return { ok: false, reason: 'store_unavailable' };
      })
      .then((r) => then(refusalOf(req, r)))
      .catch(options.onError);
  };

  /** A short plain-text answer (refusals and errors). */
  const reply = (res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
    res.end(`${text}\n`);
  };
  const onError = options.onError;
  const inFlightDone = () => void httpInFlight--;

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (pathOf(req) !== opampPath) return reply(res, 501, 'Not Implemented');
    if (draining)
      return reply(res, 503, 'draining', { 'Retry-After': retryAfterSeconds, Connection: 'close' });
    const result = admit(req);
    if (!(result instanceof Promise)) return serveAdmitted(req, res, refusalOf(req, result));
    whenAdmitted(req, (refusal) => serveAdmitted(req, res, refusal));
  }

  function serveAdmitted(
    req: IncomingMessage,
    res: ServerResponse,
    refusal: AdmissionRefusal | undefined,
  ): void {
    if (refusal === 'store_unavailable')
      return reply(res, 503, 'credentials cannot be checked now', {
        'Retry-After': retryAfterSeconds,
        Connection: 'close',
      });
    if (refusal !== undefined)
      return reply(res, 401, refusalText[refusal], { 'WWW-Authenticate': 'Bearer', Connection: 'close' });
    if (req.method !== 'POST')
      return reply(res, 405, 'use a WebSocket upgrade or POST', { Allow: 'GET, POST' });
    if (req.headers['content-type'] !== protobufContentType)
      return reply(res, 415, `Content-Type must be exactly ${protobufContentType}`);
    if (atCapacity(req))
      return reply(res, 503, 'too many connections', {
        'Retry-After': retryAfterSeconds,
        Connection: 'close',
      });
    // Counted only where it decides capacity: the listener's guard counts sockets instead.
    if (options.overCapacity === undefined) {
      httpInFlight++;
      res.once('close', inFlightDone);
    }
    const bound = admissionOf(req)?.credential === undefined ? options.unauthenticated : undefined;
    try {
      http.serve(req, res, bound, onError);
    } catch (error) {
      onError(error);
      if (!res.headersSent) reply(res, 500, 'internal error');
      else res.destroy();
    }
  }

  // ws.upgrade completes the handshake synchronously (no verifyClient), so an accepted socket is
  // among the transport's sockets before the next upgrade is counted; ws handles its socket errors.
  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (pathOf(req) !== opampPath) return rawResponse(socket, 501, 'Not Implemented');
    if (draining || atCapacity(req))
      return rawResponse(socket, 503, 'Service Unavailable', `Retry-After: ${retryAfterSeconds}\r\n`);
    whenAdmitted(req, (refusal) => {
      if (refusal === 'store_unavailable')
        return rawResponse(socket, 503, 'Service Unavailable', `Retry-After: ${retryAfterSeconds}\r\n`);
      if (refusal !== undefined)
        return rawResponse(socket, 401, 'Unauthorized', 'WWW-Authenticate: Bearer\r\n');
      // A socket that closed while its certificate was checked is not upgraded.
      if (!socket.destroyed) ws.upgrade(req, socket, head);
    });
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
