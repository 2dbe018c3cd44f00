// Load for the throughput scenario: agents that send status reports (statusMix.ts) as fast as the
// server answers, over WebSocket (several messages in flight per socket) or plain HTTP (one request
// in flight per agent, as HTTP is half-duplex). The generator shares the machine's cores with the
// server, so it is kept cheap: messages come pre-encoded from statusMix.ts, and the clients speak
// HTTP/1.1 and RFC 6455 over raw sockets (one write per message, replies counted by parsing only
// frame and response headers) instead of Node's http client and the ws library. WebSocket frames are
// masked as RFC 6455 requires, with a non-zero key (a zero key would let the server skip unmasking).

import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { createLoadAgent, type LoadAgent, type StatusMix } from './statusMix.ts';

export interface LoadCounters {
  replies: number;
  errors: number;
}

export type StopLoad = () => Promise<void>;

function open(url: URL, index: number, localAddresses: readonly string[]): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const localAddress = localAddresses[index % Math.max(1, localAddresses.length)];
    const socket = connect({
      host: url.hostname,
      port: Number(url.port),
      ...(localAddress ? { localAddress } : {}),
    });
    socket.setNoDelay(true);
    socket.once('connect', () => resolve(socket)).once('error', reject);
  });
}

/**
 * Closes with a reset (RST), not a FIN: an active close leaves each socket in TIME_WAIT on this side
 * for a minute, and with tens of thousands of them the kernel's search for a free local port at each
 * new connect (bound to a source address) takes this process whole seconds, so the next storm's
 * agents arrived in a trickle and the server's CPU per agent grew with it.
 */
function closeAll(sockets: readonly Socket[]): Promise<void> {
  return Promise.all(
    sockets.map(
      (s) =>
        new Promise<void>((resolve) => {
          if (s.destroyed) return resolve();
          s.once('close', () => resolve());
          s.resetAndDestroy();
        }),
    ),
  ).then(() => undefined);
}

/** A client-to-server binary frame carrying the OpAMP header byte and `payload`, masked with `key`. */
function wsFrame(payload: Uint8Array, key: Buffer): Buffer {
  const length = payload.length + 1;
  const head = length < 126 ? 2 : 4;
  const out = Buffer.allocUnsafe(head + 4 + length);
  out[0] = 0x82;
  if (length < 126) out[1] = 0x80 | length;
  else {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(length, 2);
  }
  key.copy(out, head);
  const at = head + 4;
  out[at] = 0 ^ key[0]!;
  for (let i = 0; i < payload.length; i++) out[at + 1 + i] = payload[i]! ^ key[(i + 1) & 3]!;
  return out;
}

/** Counts the complete server frames in `pending` and returns what is left of it. */
function countFrames(pending: Buffer, onFrame: () => void): Buffer {
  let at = 0;
  for (;;) {
    if (pending.length - at < 2) break;
    let length = pending[at + 1]! & 0x7f;
    let head = 2;
    if (length === 126) {
      if (pending.length - at < 4) break;
      length = pending.readUInt16BE(at + 2);
      head = 4;
    } else if (length === 127) {
      if (pending.length - at < 10) break;
      length = Number(pending.readBigUInt64BE(at + 2));
      head = 10;
    }
    if (pending.length - at < head + length) break;
    if ((pending[at]! & 0x0f) === 0x2) onFrame();
    at += head + length;
  }
  return at === 0 ? pending : pending.subarray(at);
}

/** The Authorization header line of an enrollment token (agents.tokens), or nothing. */
const authorizationLine = (token: string | undefined): string =>
  token === undefined ? '' : `Authorization: Bearer ${token}\r\n`;

async function upgrade(socket: Socket, url: URL, token?: string): Promise<Buffer> {
  const key = randomBytes(16).toString('base64');
  socket.write(
    `GET /v1/opamp HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${authorizationLine(token)}\r\n`,
  );
  let received = Buffer.alloc(0);
  for (;;) {
    const chunk = await new Promise<Buffer>((resolve, reject) =>
      socket.once('data', resolve).once('error', reject),
    );
    received = Buffer.concat([received, chunk]);
    const end = received.indexOf('\r\n\r\n');
    if (end < 0) continue;
    if (!received.subarray(0, 12).toString().includes('101')) throw new Error('WebSocket upgrade refused');
    return received.subarray(end + 4);
  }
}

/** `connections` WebSockets, one agent each, each keeping `window` messages in flight. */
export async function runWsLoad(
  baseUrl: string,
  options: {
    connections: number;
    window: number;
    mix: StatusMix;
    localAddresses?: readonly string[];
    /** An enrollment token every upgrade presents. */
    token?: string;
  },
  counters: LoadCounters,
): Promise<StopLoad> {
  const url = new URL(baseUrl);
  const sockets: Socket[] = [];
  let running = true;
  await Promise.all(
    Array.from({ length: options.connections }, async (_, index) => {
      const agent: LoadAgent = createLoadAgent(index, options.mix);
      const key = randomBytes(4);
      key[0]! |= 1; // never all zero
      const socket = await open(url, index, options.localAddresses ?? []);
      sockets.push(socket);
      let pending = await upgrade(socket, url, options.token);
      const onReply = () => {
        counters.replies++;
        if (running) socket.write(wsFrame(agent.next(), key));
      };
      socket.on('data', (chunk: Buffer) => {
        pending = countFrames(pending.length === 0 ? chunk : Buffer.concat([pending, chunk]), onReply);
      });
      socket.on('error', () => void counters.errors++);
      pending = countFrames(pending, onReply);
      socket.write(wsFrame(agent.first(), key));
      for (let i = 1; i < options.window; i++) socket.write(wsFrame(agent.next(), key));
    }),
  );
  return () => {
    running = false;
    return closeAll(sockets);
  };
}

function httpRequest(url: URL, body: Uint8Array, token?: string): Buffer {
  const head =
    `POST /v1/opamp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/x-protobuf\r\n` +
    `${authorizationLine(token)}Content-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/**
 * The length of the first complete response in `pending` (headers and body), or 0 while incomplete.
 * `status` receives its status code.
 */
function responseLength(pending: Buffer, status: { code: number }): number {
  const end = pending.indexOf('\r\n\r\n');
  if (end < 0) return 0;
  const head = pending.toString('latin1', 0, end);
  status.code = Number(head.slice(9, 12));
  const m = /\r\ncontent-length: *(\d+)/i.exec(head);
  const total = end + 4 + (m ? Number(m[1]) : 0);
  return pending.length >= total ? total : 0;
}

/** `agents` HTTP agents, each on its own keep-alive connection with one request in flight. */
export async function runHttpLoad(
  baseUrl: string,
  options: { agents: number; mix: StatusMix; localAddresses?: readonly string[]; token?: string },
  counters: LoadCounters,
): Promise<StopLoad> {
  const url = new URL(baseUrl);
  const sockets: Socket[] = [];
  let running = true;
  await Promise.all(
    Array.from({ length: options.agents }, async (_, index) => {
      const agent = createLoadAgent(index, options.mix);
      const socket = await open(url, index, options.localAddresses ?? []);
      sockets.push(socket);
      let pending: Buffer = Buffer.alloc(0);
      const status = { code: 0 };
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        let length;
        while ((length = responseLength(pending, status)) > 0) {
          pending = pending.subarray(length);
          if (status.code === 200) counters.replies++;
          else counters.errors++;
          if (running) socket.write(httpRequest(url, agent.next(), options.token));
        }
      });
      socket.on('error', () => void counters.errors++);
      socket.write(httpRequest(url, agent.first(), options.token));
    }),
  );
  return () => {
    running = false;
    return closeAll(sockets);
  };
}

export interface StormResult {
  /** From the first connect until every agent had its first reply (or gave up). */
  readonly seconds: number;
  readonly answered: number;
  readonly errors: number;
  /** Closes every socket the storm opened. */
  close(): Promise<void>;
}

/**
 * A connect storm: `agents` WebSocket agents, at most `concurrency` of them connecting at a time, each
 * upgrading, sending its first report (statusMix.ts) and waiting for the reply. Sockets stay open
 * until close().
 */
export async function runWsStorm(
  baseUrl: string,
  options: { agents: number; concurrency: number; localAddresses?: readonly string[]; token?: string },
): Promise<StormResult> {
  const url = new URL(baseUrl);
  const sockets: Socket[] = [];
  let next = 0;
  let answered = 0;
  let errors = 0;
  const one = async (index: number): Promise<void> => {
    const agent = createLoadAgent(index, 'realistic', { keepDescriptions: false });
    const key = randomBytes(4);
    key[0]! |= 1;
    const socket = await open(url, index, options.localAddresses ?? []);
    sockets.push(socket);
    socket.on('error', () => undefined);
    let pending = await upgrade(socket, url, options.token);
    await new Promise<void>((resolve, reject) => {
      let replied = false;
      const onReply = () => {
        if (replied) return;
        replied = true;
        resolve();
      };
      socket.on('data', (chunk: Buffer) => {
        pending = countFrames(Buffer.concat([pending, chunk]), onReply);
      });
      socket.once('close', () => reject(new Error('closed before the first reply')));
      socket.write(wsFrame(agent.first(), key));
      pending = countFrames(pending, onReply);
    });
  };
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency, options.agents) }, async () => {
      while (next < options.agents) {
        const index = next++;
        try {
          await one(index);
          answered++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return {
    seconds: (performance.now() - t0) / 1000,
    answered,
    errors,
    close: () => closeAll(sockets),
  };
}

export interface HttpPool {
  /** POSTs one AgentToServer on the next free connection; resolves with the status code. */
  post(body: Uint8Array): Promise<number>;
  close(): Promise<void>;
}

/** `connections` keep-alive connections; requests wait for a free one (one in flight per connection). */
export async function createHttpPool(
  baseUrl: string,
  options: { connections: number; localAddresses?: readonly string[] },
): Promise<HttpPool> {
  const url = new URL(baseUrl);
  const queue: { body: Uint8Array; done: (status: number) => void }[] = [];
  const idle: ((job: (typeof queue)[number]) => void)[] = [];
  const sockets = await Promise.all(
    Array.from({ length: options.connections }, (_, i) => open(url, i, options.localAddresses ?? [])),
  );
  for (const socket of sockets) {
    let pending: Buffer = Buffer.alloc(0);
    let current: (typeof queue)[number] | undefined;
    let closed = false;
    const status = { code: 0 };
    // A closed connection fails its jobs at once (status 0) rather than leaving them waiting.
    const take = (job: (typeof queue)[number]) => {
      if (closed) return job.done(0);
      current = job;
      socket.write(httpRequest(url, job.body));
    };
    const free = () => {
      const job = queue.shift();
      if (job) take(job);
      else idle.push(take);
    };
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const length = responseLength(pending, status);
      if (length === 0 || current === undefined) return;
      pending = pending.subarray(length);
      const job = current;
      current = undefined;
      job.done(status.code);
      free();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      current?.done(0);
      current = undefined;
    });
    free();
  }
  return {
    post: (body) =>
      new Promise((done) => {
        const job = { body, done };
        const worker = idle.shift();
        if (worker) worker(job);
        else queue.push(job);
      }),
    close: () => closeAll(sockets),
  };
}
