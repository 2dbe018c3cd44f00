// Load for the throughput scenario: agents that send status reports (a check-in with a health report
// whose healthy flag alternates, sequence numbers in order) as fast as the server answers. Messages
// are assembled from pre-encoded parts (protobuf fields may be concatenated), so the client spends
// little CPU on the same two cores as the server.

import { Agent as HttpAgent, request } from 'node:http';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { instanceUidBytes } from '../../../src/io/opamp/instanceUid.ts';
import { describeAgent } from '../../simulate/descriptions.ts';

export interface LoadCounters {
  replies: number;
  errors: number;
}

const capabilities = 0x1 | 0x800 | 0x2000;
const healthField = (healthy: boolean) => {
  const full = encodeAgentToServer({
    health: { healthy, status: healthy ? 'StatusOK' : 'StatusRecoverableError' },
  });
  return Buffer.from(full); // field 5 with its tag and length
};
const health = [healthField(false), healthField(true)];

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

class LoadAgent {
  readonly uid = randomUUID();
  private readonly uidField = Buffer.from([0x0a, 16, ...instanceUidBytes(this.uid)]);
  private seq = 0;
  /** The first message registers the agent with a description, so no full state is requested. */
  first(): Uint8Array {
    return encodeAgentToServer({
      instanceUid: instanceUidBytes(this.uid),
      sequenceNum: this.seq++,
      capabilities,
      agentDescription: describeAgent(this.seq, this.uid),
      health: { healthy: true },
    });
  }
  next(): Buffer {
    const seq = this.seq++;
    return Buffer.concat([
      this.uidField,
      Buffer.from([0x10, ...varint(seq), 0x20, ...varint(capabilities)]),
      health[seq % 2]!,
    ]);
  }
}

const wsUrl = (url: string) => `${url.replace(/^http/, 'ws')}/v1/opamp`;

/** `connections` WebSockets, one agent each, each keeping `window` messages in flight. */
export async function runWsLoad(url: string, connections: number, window: number, counters: LoadCounters) {
  const sockets: WebSocket[] = [];
  let running = true;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const agent = new LoadAgent();
      const ws = new WebSocket(wsUrl(url), { perMessageDeflate: false });
      sockets.push(ws);
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.on('message', () => {
        counters.replies++;
        if (running) ws.send(Buffer.concat([Buffer.from([0]), agent.next()]));
      });
      ws.on('error', () => void counters.errors++);
      ws.send(Buffer.concat([Buffer.from([0]), agent.first()]));
      for (let i = 1; i < window; i++) ws.send(Buffer.concat([Buffer.from([0]), agent.next()]));
    }),
  );
  return async () => {
    running = false;
    await Promise.all(
      sockets.map(
        (ws) =>
          new Promise<void>((resolve) =>
            ws.readyState === WebSocket.CLOSED ? resolve() : (ws.once('close', () => resolve()), ws.close()),
          ),
      ),
    );
  };
}

/** `agents` HTTP agents over a keep-alive pool, each with one request in flight (HTTP is half-duplex). */
export function runHttpLoad(url: string, agents: number, counters: LoadCounters) {
  const pool = new HttpAgent({ keepAlive: true, maxSockets: agents });
  const target = new URL('/v1/opamp', url);
  let running = true;
  const loop = (agent: LoadAgent, body: Uint8Array) => {
    const req = request(target, {
      method: 'POST',
      agent: pool,
      headers: { 'Content-Type': 'application/x-protobuf', 'Content-Length': body.length },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) counters.replies++;
        else counters.errors++;
        if (running) loop(agent, agent.next());
      });
    });
    req.on('error', () => {
      counters.errors++;
      if (running) setTimeout(() => loop(agent, agent.next()), 100);
    });
    req.end(body);
  };
  for (let i = 0; i < agents; i++) {
    const agent = new LoadAgent();
    loop(agent, agent.first());
  }
  return () => {
    running = false;
    pool.destroy();
    return Promise.resolve();
  };
}
