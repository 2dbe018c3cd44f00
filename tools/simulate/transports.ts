// How simulated agents reach the server: a WebSocket per agent, plain-HTTP POSTs over keep-alive
// pools, or one gateway WebSocket that relays many agents (the gateway connect handshake of
// src/io/opamp/gateway.ts, capability com.vendor.opamp-gateway). Only the wire protocol is used, so
// any OpAMP server works. Source addresses rotate over `localAddresses` (127.0.0.0/8 on loopback) so
// one address's ephemeral ports are not the limit.

import { Agent as HttpAgent, request } from 'node:http';
import WebSocket from 'ws';
import { decodeServerToAgent, encodeAgentToServer } from '../../src/io/opamp/codec.ts';
import { frame, unframe } from '../../src/io/opamp/framing.ts';
import { onReply, type SimAgent } from './agentModel.ts';
import { addLatency, countError, type SimStats } from './simStats.ts';

export interface Channel {
  /** Resolves when messages can be sent (socket open, gateway accepted); rejects on failure. */
  open(): Promise<void>;
  send(bytes: Uint8Array): void;
  close(): void;
  readonly isOpen: boolean;
}

export interface TransportContext {
  readonly url: URL;
  readonly stats: SimStats;
  readonly localAddresses: readonly string[];
  /** An enrollment token (agents.tokens) every WebSocket upgrade presents as a bearer token. */
  readonly token?: string;
  /** Called when a reply asks the agent for its full state (real agents send it at once). */
  readonly onFullStateRequested?: (agent: SimAgent) => void;
  /** Called when a reply brings a new remote config (the agent reports APPLYING, then applies it). */
  readonly onConfigReceived?: (agent: SimAgent) => void;
  /** Called when a reply brings a restart command. */
  readonly onRestart?: (agent: SimAgent) => void;
}

let nextAddress = 0;
const sourceAddress = (ctx: TransportContext): string | undefined =>
  ctx.localAddresses.length === 0 ? undefined : ctx.localAddresses[nextAddress++ % ctx.localAddresses.length];

function handleReply(agent: SimAgent, ctx: TransportContext, bytes: Uint8Array): void {
  const { stats } = ctx;
  stats.replies++;
  const sentAt = agent.pending.shift();
  if (sentAt !== undefined) addLatency(stats, performance.now() - sentAt);
  const reply = decodeServerToAgent(bytes);
  if (reply.errorResponse) countError(stats, 'error_response');
  const effects = onReply(agent, reply);
  if (effects.restart) ctx.onRestart?.(agent);
  else if (agent.needsFullState) ctx.onFullStateRequested?.(agent);
  else if (effects.configReceived) ctx.onConfigReceived?.(agent);
}

const wsUrl = (url: URL) => new URL('/v1/opamp', url).href.replace(/^http/, 'ws');

/** The ws client's options: no compression, the next source address, the token if there is one. */
function wsOptions(ctx: TransportContext) {
  const localAddress = sourceAddress(ctx);
  return {
    perMessageDeflate: false,
    ...(localAddress && { localAddress }),
    ...(ctx.token !== undefined && { headers: { Authorization: `Bearer ${ctx.token}` } }),
  };
}

export function wsChannel(ctx: TransportContext, agent: SimAgent): Channel {
  let ws: WebSocket | undefined;
  let closing = false;
  return {
    get isOpen() {
      return ws?.readyState === WebSocket.OPEN;
    },
    open() {
      closing = false;
      const socket = new WebSocket(wsUrl(ctx.url), wsOptions(ctx));
      ws = socket;
      socket.on('message', (data: Buffer) => {
        const u = unframe(new Uint8Array(data));
        if (u.ok) handleReply(agent, ctx, u.payload);
      });
      let opened = false;
      socket.on('close', () => {
        if (opened && !closing) countError(ctx.stats, 'closed_by_server');
      });
      return new Promise((resolve, reject) => {
        socket.once('open', () => {
          opened = true;
          resolve();
        });
        socket.once('error', (error) => {
          countError(ctx.stats, `ws_${(error as NodeJS.ErrnoException).code ?? 'error'}`);
          reject(error);
        });
      });
    },
    send(bytes) {
      if (ws?.readyState !== WebSocket.OPEN) return countError(ctx.stats, 'send_while_closed');
      agent.pending.push(performance.now());
      ctx.stats.sent++;
      ws.send(frame(bytes));
    },
    close() {
      closing = true;
      ws?.close();
    },
  };
}

/** One keep-alive pool per source address, shared by every HTTP agent. */
export function httpPools(ctx: TransportContext, maxSockets = 128) {
  const addresses = ctx.localAddresses.length > 0 ? ctx.localAddresses : [undefined];
  const pools = addresses.map(
    (localAddress) => new HttpAgent({ keepAlive: true, maxSockets, ...(localAddress && { localAddress }) }),
  );
  return { pools, destroy: () => pools.forEach((p) => p.destroy()) };
}

export function httpChannel(ctx: TransportContext, agent: SimAgent, pool: HttpAgent): Channel {
  const target = new URL('/v1/opamp', ctx.url);
  return {
    isOpen: true,
    open: () => Promise.resolve(),
    send(bytes) {
      agent.pending.push(performance.now());
      ctx.stats.sent++;
      const req = request(target, {
        method: 'POST',
        agent: pool,
        headers: { 'Content-Type': 'application/x-protobuf', 'Content-Length': bytes.length },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode === 200) handleReply(agent, ctx, Buffer.concat(chunks));
          else {
            agent.pending.shift();
            countError(ctx.stats, `http_${res.statusCode}`);
          }
        });
      });
      req.on('error', (error) => {
        agent.pending.shift();
        countError(ctx.stats, `http_${(error as NodeJS.ErrnoException).code ?? 'error'}`);
      });
      req.end(bytes);
    },
    close: () => undefined,
  };
}

export interface Gateway {
  open(): Promise<void>;
  channel(agent: SimAgent): Channel;
  close(): void;
}

/**
 * One upstream WebSocket relaying many agents; each agent is admitted by a connect handshake first.
 * When the server closes the upstream, the gateway opens it again a second later, as a real gateway
 * would, and its agents are admitted again as each one's next heartbeat finds it down.
 */
export function gateway(ctx: TransportContext, capability = 'com.vendor.opamp-gateway'): Gateway {
  const upstream = wsChannelRaw(ctx);
  const agents = new Map<string, SimAgent>();
  const waiting = new Map<string, (accepted: boolean | undefined) => void>();
  let requests = 0;
  /** Which upstream connection an agent was admitted on: admissions end with it. */
  let generation = 0;
  let reopening: Promise<void> | undefined;
  upstream.onMessage = (bytes) => {
    const reply = decodeServerToAgent(bytes);
    const cm = reply.customMessage;
    if (cm && cm.type === 'connectResult') {
      const result = JSON.parse(Buffer.from(cm.data).toString()) as { request_uid: string; accept: boolean };
      waiting.get(result.request_uid)?.(result.accept);
      waiting.delete(result.request_uid);
      return;
    }
    const agent = agents.get(Buffer.from(reply.instanceUid ?? []).toString('hex'));
    if (agent) handleReply(agent, ctx, bytes);
  };
  upstream.onClose = () => {
    generation++;
    agents.clear();
    for (const answer of waiting.values()) answer(undefined);
    waiting.clear();
    reopening = new Promise<void>((resolve) => setTimeout(resolve, 1000))
      .then(() => upstream.open())
      .catch(() => countError(ctx.stats, 'gateway_reopen_failed'))
      .finally(() => (reopening = undefined));
  };
  return {
    open: () => upstream.open(),
    close: () => upstream.close(),
    channel(agent) {
      let admittedOn = -1;
      return {
        get isOpen() {
          return admittedOn === generation && upstream.isOpen;
        },
        async open() {
          if (reopening) await reopening;
          if (!upstream.isOpen) throw new Error('gateway down');
          const request_uid = `r${++requests}`;
          const data = Buffer.from(
            JSON.stringify({
              request_uid,
              remote_address: `10.1.${(agent.index >> 8) & 255}.${agent.index & 255}:40000`,
              headers: {},
            }),
          );
          const accepted = new Promise<boolean | undefined>((resolve) => waiting.set(request_uid, resolve));
          const on = generation;
          upstream.send(encodeAgentToServer({ customMessage: { capability, type: 'connect', data } }));
          const answer = await accepted;
          if (answer === undefined) throw new Error('gateway closed before the answer');
          if (!answer) {
            countError(ctx.stats, 'gateway_rejected');
            throw new Error('gateway connect rejected');
          }
          agents.set(agent.uidKey, agent);
          admittedOn = on;
        },
        send(bytes) {
          if (admittedOn !== generation || !upstream.isOpen)
            return countError(ctx.stats, 'send_while_closed');
          agent.pending.push(performance.now());
          ctx.stats.sent++;
          upstream.send(bytes);
        },
        close() {
          admittedOn = -1;
          agents.delete(agent.uidKey);
        },
      };
    },
  };
}

/** A bare framed WebSocket for the gateway's upstream. */
function wsChannelRaw(ctx: TransportContext) {
  let ws: WebSocket | undefined;
  let closing = false;
  const raw = {
    onMessage: (_bytes: Uint8Array): void => undefined,
    /** The server closed the connection (not close()). */
    onClose: (): void => undefined,
    get isOpen() {
      return ws?.readyState === WebSocket.OPEN;
    },
    open(): Promise<void> {
      closing = false;
      ws = new WebSocket(wsUrl(ctx.url), wsOptions(ctx));
      ws.on('message', (data: Buffer) => {
        const u = unframe(new Uint8Array(data));
        if (u.ok) raw.onMessage(u.payload);
      });
      const socket = ws;
      // A gateway the server closes takes every agent it relays with it: count it, with the close code.
      let opened = false;
      socket.on('close', (code: number) => {
        if (!opened || closing) return;
        countError(ctx.stats, `gateway_closed_${code}`);
        raw.onClose();
      });
      return new Promise((resolve, reject) => {
        socket.once('open', () => ((opened = true), resolve()));
        socket.once('error', reject);
      });
    },
    send(bytes: Uint8Array) {
      if (ws?.readyState === WebSocket.OPEN) ws.send(frame(bytes));
    },
    close() {
      closing = true;
      ws?.close();
    },
  };
  return raw;
}
