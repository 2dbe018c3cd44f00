// A small OpAMP agent for specs and tools: builds AgentToServer messages and speaks both transports
// over real sockets (the `ws` client and fetch).

import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { decodeServerToAgent, encodeAgentToServer } from '../../src/io/opamp/codec.ts';
import { frame, unframe } from '../../src/io/opamp/framing.ts';
import { instanceUidBytes } from '../../src/io/opamp/instanceUid.ts';

export type ServerToAgent = ReturnType<typeof decodeServerToAgent>;

export const kv = (attrs: Record<string, string>) =>
  Object.entries(attrs).map(([key, value]) => ({ key, value: { stringValue: value } }));

export function description(
  identifying: Record<string, string>,
  nonIdentifying: Record<string, string> = {},
) {
  return { identifyingAttributes: kv(identifying), nonIdentifyingAttributes: kv(nonIdentifying) };
}

export const newUid = (): string => randomUUID();

/** AgentToServer bytes for `uid` plus any other fields (protobufjs object form, camelCase). */
export function agentMessage(uid: string, fields: Record<string, unknown> = {}): Uint8Array {
  return encodeAgentToServer({ instanceUid: instanceUidBytes(uid), capabilities: 1, ...fields });
}

export async function postHttp(
  url: string,
  body: Uint8Array,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; message: ServerToAgent | undefined; text: string }> {
  const res = await fetch(`${url}/v1/opamp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-protobuf', ...headers },
    body,
  });
  const raw = Buffer.from(await res.arrayBuffer());
  if (res.headers.get('content-type') !== 'application/x-protobuf' || res.status !== 200)
    return { status: res.status, headers: res.headers, message: undefined, text: raw.toString() };
  // fetch decodes gzip itself; a raw gzip body (no decoding) is handled too.
  const bytes = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
  return { status: res.status, headers: res.headers, message: decodeServerToAgent(bytes), text: '' };
}

/**
 * Opens a WebSocket that the server refuses: the status and headers of its HTTP answer. `tls`: the
 * client's TLS options (a CA, a client certificate) for a wss:// listener.
 */
export function refusedUpgrade(
  url: string,
  headers: Record<string, string> = {},
  tls: Pick<WebSocket.ClientOptions, 'ca' | 'cert' | 'key'> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/opamp`, { headers, ...tls });
    socket.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.resume();
      socket.terminate();
    });
    socket.once('open', () => {
      socket.close();
      reject(new Error('upgrade was accepted'));
    });
    socket.once('error', () => undefined);
  });
}

/** A WebSocket agent connection that collects replies in order. */
export class WsAgent {
  readonly socket: WebSocket;
  private readonly replies: ServerToAgent[] = [];
  private readonly waiters: ((m: ServerToAgent) => void)[] = [];
  closeCode: number | undefined;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data: Buffer) => {
      const u = unframe(new Uint8Array(data));
      if (!u.ok) return;
      const message = decodeServerToAgent(u.payload);
      const waiter = this.waiters.shift();
      if (waiter) waiter(message);
      else this.replies.push(message);
    });
    socket.on('close', (code) => {
      this.closeCode = code;
    });
  }

  static open(url: string, options: WebSocket.ClientOptions = {}): Promise<WsAgent> {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/opamp`, options);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new WsAgent(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one message (with the header unless `legacy`) and waits for the next reply. */
  send(bytes: Uint8Array, opts: { legacy?: boolean } = {}): Promise<ServerToAgent> {
    this.socket.send(opts.legacy ? bytes : frame(bytes));
    return this.next();
  }

  next(): Promise<ServerToAgent> {
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
