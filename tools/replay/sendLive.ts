// Sends a recording to a live OpAMP server, at the recorded pace (speed 1), faster (speed N) or as
// fast as the server answers (speed Infinity). Each recorded WebSocket becomes one client WebSocket
// (opened at its first message, closed at its close record); each plain-HTTP message becomes one
// POST. `transport` can force every message onto one transport: WebSocket then uses one socket per
// recorded connection (HTTP-recorded messages one socket per agent), HTTP one POST per message.
// Messages of one agent are sent in order, each after the previous one was answered on HTTP.

import { request as httpRequest, Agent } from 'node:http';
import WebSocket from 'ws';
import { decodeAgentToServerWire } from '../../src/io/opamp/codec.ts';
import { frame } from '../../src/io/opamp/framing.ts';
import { toInstanceUid } from '../../src/io/opamp/instanceUid.ts';
import type { RecordingReader } from '../../src/io/recorder/recordingReader.ts';
import type { MessageRecord } from '../../src/io/recorder/recordingFormat.ts';

export interface SendOptions {
  /** Base URL of the server's OpAMP listener, e.g. http://127.0.0.1:4320 (loopback in specs). */
  readonly url: string;
  readonly speed: number;
  readonly transport: 'recorded' | 'ws' | 'http';
  readonly until?: number | undefined;
  readonly onProgress?: ((sent: number, errors: number) => void) | undefined;
}

export interface SendResult {
  sent: number;
  answered: number;
  errors: number;
  readonly errorSamples: string[];
}

interface Socket {
  readonly ws: WebSocket;
  readonly open: Promise<void>;
  sent: number;
  answered: number;
  /** Resolves once every message sent on this socket was answered (or the socket closed). */
  settled(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function sendLive(reader: RecordingReader, options: SendOptions): Promise<SendResult> {
  const result: SendResult = { sent: 0, answered: 0, errors: 0, errorSamples: [] };
  const fail = (what: string) => {
    result.errors++;
    if (result.errorSamples.length < 10) result.errorSamples.push(what);
  };
  const target = new URL('/v1/opamp', options.url);
  const wsUrl = target.href.replace(/^http/, 'ws');
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const sockets = new Map<string, Socket>();
  const chains = new Map<string, Promise<void>>();
  const inFlight = new Set<Promise<void>>();

  function socketFor(key: string): Socket {
    let s = sockets.get(key);
    if (s === undefined) {
      const ws = new WebSocket(wsUrl);
      let wake: (() => void) | undefined;
      ws.on('message', () => {
        result.answered++;
        socket.answered++;
        if (socket.answered >= socket.sent) wake?.();
      });
      ws.on('error', (error) => fail(`websocket ${key}: ${error.message}`));
      ws.on('close', () => wake?.());
      const open = new Promise<void>((resolve) => {
        ws.once('open', () => resolve());
        ws.once('close', () => resolve());
      });
      const socket: Socket = {
        ws,
        open,
        sent: 0,
        answered: 0,
        settled: () =>
          socket.answered >= socket.sent || ws.readyState !== WebSocket.OPEN
            ? Promise.resolve()
            : new Promise<void>((resolve) => {
                wake = resolve;
                setTimeout(resolve, 5000).unref();
              }),
      };
      s = socket;
      sockets.set(key, s);
    }
    return s;
  }

  function post(payload: Uint8Array): Promise<void> {
    return new Promise((resolve) => {
      const req = httpRequest(
        target,
        {
          method: 'POST',
          agent,
          headers: { 'Content-Type': 'application/x-protobuf', 'Content-Length': payload.length },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) result.answered++;
            else fail(`HTTP ${res.statusCode}`);
            resolve();
          });
        },
      );
      req.on('error', (error) => {
        fail(`HTTP: ${error.message}`);
        resolve();
      });
      req.end(payload);
    });
  }

  /** The agent a message belongs to, to keep one agent's messages in order. */
  function agentKey(record: MessageRecord): string {
    try {
      return (
        toInstanceUid(decodeAgentToServerWire(record.payload).instanceUid ?? new Uint8Array()) ??
        `conn-${record.connectionId}`
      );
    } catch {
      return `conn-${record.connectionId}`;
    }
  }

  function send(record: MessageRecord): void {
    result.sent++;
    const overWs =
      options.transport === 'ws' || (options.transport === 'recorded' && record.transport === 'ws');
    if (overWs) {
      const key = record.transport === 'ws' ? `ws-${record.connectionId}` : `agent-${agentKey(record)}`;
      const s = socketFor(key);
      void s.open.then(() => {
        if (s.ws.readyState !== WebSocket.OPEN) return fail(`websocket ${key} not open`);
        s.sent++;
        s.ws.send(frame(record.payload));
      });
      return;
    }
    const key = agentKey(record);
    const p = (chains.get(key) ?? Promise.resolve()).then(() => post(record.payload));
    chains.set(key, p);
    inFlight.add(p);
    void p.then(() => {
      inFlight.delete(p);
      if (chains.get(key) === p) chains.delete(key);
    });
  }

  let first: number | undefined;
  const started = performance.now();
  const until = options.until ?? Infinity;
  outer: for await (const batch of reader.batches()) {
    for (const record of batch) {
      if (record.receivedAt > until) break outer;
      first ??= record.receivedAt;
      if (Number.isFinite(options.speed)) {
        const due = (record.receivedAt - first) / options.speed - (performance.now() - started);
        if (due > 1) await sleep(due);
      }
      if (inFlight.size >= 256) await Promise.race(inFlight);
      if (record.kind === 'message') send(record);
      else if (options.transport !== 'http') {
        const s = sockets.get(`ws-${record.connectionId}`);
        if (s) void s.open.then(() => s.settled()).then(() => s.ws.close());
        sockets.delete(`ws-${record.connectionId}`);
      }
      options.onProgress?.(result.sent, result.errors);
    }
  }
  await Promise.all(inFlight);
  await Promise.all(
    [...sockets.values()].map(async (s) => {
      await s.open;
      await s.settled();
      await new Promise<void>((resolve) => {
        if (s.ws.readyState === WebSocket.CLOSED) return resolve();
        s.ws.once('close', () => resolve());
        s.ws.close();
      });
    }),
  );
  agent.destroy();
  return result;
}
