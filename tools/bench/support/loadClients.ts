// Load for the throughput scenario: agents that send status reports (statusMix.ts) as fast as the
// server answers, over WebSocket (several messages in flight per socket) or plain HTTP (one request
// in flight per agent over a keep-alive pool, as HTTP is half-duplex). Messages come pre-encoded
// from statusMix.ts, so the client spends little CPU on the same two cores as the server.

import { Agent as HttpAgent, request } from 'node:http';
import WebSocket from 'ws';
import { createLoadAgent, type StatusMix } from './statusMix.ts';

export interface LoadCounters {
  replies: number;
  errors: number;
}

const header = Buffer.from([0]);
const wsUrl = (url: string) => `${url.replace(/^http/, 'ws')}/v1/opamp`;

/** `connections` WebSockets, one agent each, each keeping `window` messages in flight. */
export async function runWsLoad(
  url: string,
  options: { connections: number; window: number; mix: StatusMix },
  counters: LoadCounters,
) {
  const sockets: WebSocket[] = [];
  let running = true;
  await Promise.all(
    Array.from({ length: options.connections }, async (_, index) => {
      const agent = createLoadAgent(index, options.mix);
      const ws = new WebSocket(wsUrl(url), { perMessageDeflate: false });
      sockets.push(ws);
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.on('message', () => {
        counters.replies++;
        if (running) ws.send(Buffer.concat([header, agent.next()]));
      });
      ws.on('error', () => void counters.errors++);
      ws.send(Buffer.concat([header, agent.first()]));
      for (let i = 1; i < options.window; i++) ws.send(Buffer.concat([header, agent.next()]));
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
export function runHttpLoad(
  url: string,
  options: { agents: number; mix: StatusMix },
  counters: LoadCounters,
) {
  const pool = new HttpAgent({ keepAlive: true, maxSockets: options.agents });
  const target = new URL('/v1/opamp', url);
  let running = true;
  const loop = (agent: ReturnType<typeof createLoadAgent>, body: Uint8Array) => {
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
  for (let i = 0; i < options.agents; i++) {
    const agent = createLoadAgent(i, options.mix);
    loop(agent, agent.first());
  }
  return () => {
    running = false;
    pool.destroy();
    return Promise.resolve();
  };
}
