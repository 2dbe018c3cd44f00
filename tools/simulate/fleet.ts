// A simulated fleet: N agents over WebSocket, HTTP or a mix, optionally relayed through gateway
// connections; ramp-up at a chosen rate, heartbeats spread evenly over the interval, flapping health,
// and churn (disconnects, restarts, agents replaced by new ones). Used by the simulate CLI and by the
// benchmarks. Everything it starts, stop() ends.

import {
  createSimAgent,
  disconnectMessage,
  finishApplying,
  nextMessage,
  renew,
  restartProcess,
  type SimAgent,
} from './agentModel.ts';
import { createSimStats, latencyPercentiles, type SimStats } from './simStats.ts';
import {
  gateway,
  httpChannel,
  httpPools,
  wsChannel,
  type Channel,
  type Gateway,
  type TransportContext,
} from './transports.ts';

export interface FleetOptions {
  /** OpAMP base URL, e.g. http://127.0.0.1:4320. */
  readonly url: string;
  readonly agents: number;
  readonly transport: 'ws' | 'http' | 'mix';
  /** WebSocket agents are relayed through this many gateway connections (0: each has its own socket). */
  readonly gateways: number;
  readonly heartbeatMs: number;
  /** Probability per heartbeat that an agent's health flips. */
  readonly flapRate: number;
  readonly configBytes: number;
  readonly attributes: number;
  /** Churn events (disconnect, restart, replace) per second across the fleet. */
  readonly churnPerSecond: number;
  /** New agents per second while ramping up; 0 or Infinity = as fast as possible. */
  readonly rampPerSecond: number;
  readonly localAddresses: readonly string[];
  /** How long an agent takes to apply a remote config it received (it reports APPLYING meanwhile). */
  readonly applyMs?: number;
  /** Share of agents (0..1, the first ones by index) that report FAILED for every config they get. */
  readonly configFailRate?: number;
  /** Share of agents (0..1, the last ones by index) that roll back every config after their first. */
  readonly configRollbackRate?: number;
  /** How long a restart takes: the agent is gone this long after a restart command. */
  readonly restartMs?: number;
  /** How long a disconnected agent ("disconnect" churn) stays away; the heartbeat interval when unset. */
  readonly reconnectMs?: number;
  /** An enrollment token (agents.tokens) every WebSocket connection presents (a gateway's for all it relays). */
  readonly token?: string;
}

export interface FleetSnapshot {
  readonly agents: number;
  readonly started: number;
  readonly connected: number;
  readonly sent: number;
  readonly replies: number;
  readonly errors: number;
  readonly errorKinds: Record<string, number>;
  readonly latencyMs: { p50: number; p99: number };
  /** Restart commands obeyed. */
  readonly restarts: number;
  /** Agents by the remote config status they report, and by the config hash they run. */
  readonly configs: {
    readonly applying: number;
    readonly applied: number;
    readonly failed: number;
    readonly byHash: Record<string, number>;
  };
}

interface Slot {
  readonly agent: SimAgent;
  channel: Channel;
  /** down: retried at the next heartbeat; parked: churned away, coming back on its own timer. */
  state: 'down' | 'connecting' | 'up' | 'parked';
}

const tickMs = 100;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createFleet(options: FleetOptions) {
  const stats: SimStats = createSimStats();
  const ctx: TransportContext = {
    url: new URL(options.url),
    stats,
    localAddresses: options.localAddresses,
    ...(options.token !== undefined && { token: options.token }),
    onFullStateRequested: (agent) => sendNow(agent),
    onRestart: (agent) => {
      const slot = slots[agent.index];
      if (slot?.state !== 'up') return;
      restarts++;
      slot.state = 'parked';
      const old = slot.channel;
      old.close(); // a WebSocket agent's connection ends with its process
      later(options.restartMs ?? 100, () => {
        restartProcess(agent);
        void bringUp(slot);
      });
    },
    onConfigReceived: (agent) => {
      sendNow(agent); // APPLYING
      later(options.applyMs ?? 50, () => {
        finishApplying(agent);
        sendNow(agent); // APPLIED or FAILED
      });
    },
  };
  /** Reports at once (real agents answer a full-state request or a new config without waiting). */
  function sendNow(agent: SimAgent): void {
    const slot = slots[agent.index];
    if (slot?.state === 'up' && slot.channel.isOpen) slot.channel.send(nextMessage(agent, messageOptions));
  }
  const http = httpPools(ctx);
  const gateways: Gateway[] = [];
  const slots: Slot[] = [];
  const messageOptions = { configBytes: options.configBytes, attributes: options.attributes };
  const ticksPerInterval = Math.max(1, Math.round(options.heartbeatMs / tickMs));
  const buckets: Slot[][] = Array.from({ length: ticksPerInterval }, () => []);
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, run: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      run();
    }, ms);
    timers.add(t);
  };
  let tick = 0;
  let stopped = false;
  let restarts = 0;
  let churnCredit = 0;

  const usesHttp = (i: number) =>
    options.transport === 'http' || (options.transport === 'mix' && i % 2 === 1);

  function channelFor(agent: SimAgent): Channel {
    if (usesHttp(agent.index)) return httpChannel(ctx, agent, http.pools[agent.index % http.pools.length]!);
    if (gateways.length > 0) return gateways[agent.index % gateways.length]!.channel(agent);
    return wsChannel(ctx, agent);
  }

  async function bringUp(slot: Slot): Promise<void> {
    slot.state = 'connecting';
    slot.channel = channelFor(slot.agent);
    try {
      await slot.channel.open();
    } catch {
      slot.state = 'down'; // counted by the channel; the heartbeat loop retries
      return;
    }
    if (stopped) return slot.channel.close();
    slot.state = 'up';
    slot.channel.send(nextMessage(slot.agent, messageOptions));
  }

  function heartbeat(slot: Slot): void {
    if (slot.state === 'down' || (slot.state === 'up' && !slot.channel.isOpen)) {
      void bringUp(slot);
      return;
    }
    if (slot.state !== 'up') return;
    const flap = options.flapRate > 0 && Math.random() < options.flapRate;
    slot.channel.send(nextMessage(slot.agent, messageOptions, flap));
  }

  function churnOnce(): void {
    const slot = slots[Math.floor(Math.random() * slots.length)];
    if (slot?.state !== 'up') return;
    const kind = Math.floor(Math.random() * 3);
    if (kind !== 1 && slot.channel.isOpen) slot.channel.send(disconnectMessage(slot.agent));
    slot.state = 'parked';
    const old = slot.channel;
    // Close after the disconnect message had time to leave.
    later(50, () => old.close());
    if (kind === 0) {
      later(options.reconnectMs ?? options.heartbeatMs, () => void bringUp(slot));
    } else {
      if (kind === 1) {
        slot.agent.sequenceNum = 0; // a restarted process starts counting again and reports everything
        slot.agent.needsFullState = true;
      } else renew(slot.agent);
      later(60, () => void bringUp(slot));
    }
  }

  const ticker = setInterval(() => {
    if (stopped) return;
    for (const slot of buckets[tick++ % ticksPerInterval]!) heartbeat(slot);
    churnCredit += (options.churnPerSecond * tickMs) / 1000;
    for (; churnCredit >= 1; churnCredit--) churnOnce();
  }, tickMs);

  async function start(): Promise<void> {
    for (let g = 0; g < options.gateways && options.transport !== 'http'; g++) {
      const gw = gateway(ctx);
      await gw.open();
      gateways.push(gw);
    }
    const began = performance.now();
    const rate =
      options.rampPerSecond > 0 && Number.isFinite(options.rampPerSecond) ? options.rampPerSecond : Infinity;
    const opening = new Set<Promise<void>>();
    for (let i = 0; i < options.agents && !stopped; i++) {
      const agent = createSimAgent(i);
      agent.failsConfigs = i < Math.round((options.configFailRate ?? 0) * options.agents);
      agent.rollsBack = options.agents - i <= Math.round((options.configRollbackRate ?? 0) * options.agents);
      // Parked until bringUp below: a heartbeat tick during the ramp's pause must not start it twice.
      const slot: Slot = { agent, channel: undefined as unknown as Channel, state: 'parked' };
      slots.push(slot);
      buckets[i % ticksPerInterval]!.push(slot);
      const due = (i / rate) * 1000 - (performance.now() - began);
      if (due > 1) await sleep(due);
      const p = bringUp(slot);
      opening.add(p);
      void p.finally(() => opening.delete(p));
      // Bounded in-flight opens: more than the listen backlog (511 in Node) makes the kernel drop SYNs.
      if (opening.size >= 256) await Promise.race(opening);
    }
    await Promise.all(opening);
  }

  function snapshot(): FleetSnapshot {
    let connected = 0;
    const configs = { applying: 0, applied: 0, failed: 0, byHash: {} as Record<string, number> };
    for (const s of slots) {
      if (s.state === 'up' && s.agent.registered && s.channel.isOpen) connected++;
      const { configHash, configStatus } = s.agent;
      if (configHash === '') continue;
      configs.byHash[configHash] = (configs.byHash[configHash] ?? 0) + 1;
      if (configStatus !== 'unset') configs[configStatus]++;
    }
    return {
      agents: options.agents,
      started: slots.length,
      connected,
      sent: stats.sent,
      replies: stats.replies,
      errors: stats.errors,
      errorKinds: Object.fromEntries(stats.errorKinds),
      latencyMs: latencyPercentiles(stats),
      restarts,
      configs,
    };
  }

  async function stop(): Promise<void> {
    stopped = true;
    clearInterval(ticker);
    for (const t of timers) clearTimeout(t);
    for (const s of slots) s.channel?.close();
    for (const g of gateways) g.close();
    http.destroy();
    await sleep(100);
  }

  return { start, stop, snapshot, stats };
}

export type Fleet = ReturnType<typeof createFleet>;
