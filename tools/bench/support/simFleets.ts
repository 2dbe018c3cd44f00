// Simulated fleets for the remote-config and job benchmarks: `agents` WebSocket agents, as many
// directly connected as the open-files limit allows (one socket each) and the rest relayed through
// gateway connections, all accepting remote config and restarts like supervised Collectors.

import { createFleet, type Fleet } from '../../simulate/fleet.ts';
import type { BenchContext } from '../scenario.ts';
import { waitFor } from './numbers.ts';

export interface SimFleets {
  readonly fleets: readonly Fleet[];
  readonly direct: number;
  readonly relayed: number;
  count(select: (f: Fleet) => number): number;
  stop(): Promise<void>;
}

export async function startSimFleets(
  ctx: BenchContext,
  url: string,
  agents: number,
  options: { configBytes?: number; heartbeatMs?: number } = {},
): Promise<SimFleets> {
  const direct = Math.min(agents, Math.max(100, Math.floor((ctx.fdLimit - 2000) / 2)));
  const relayed = agents - direct;
  const common = {
    url,
    transport: 'ws' as const,
    heartbeatMs: options.heartbeatMs ?? 30_000,
    flapRate: 0,
    configBytes: options.configBytes ?? 1024,
    attributes: 10,
    churnPerSecond: 0,
    rampPerSecond: 5000,
    localAddresses: ctx.localAddresses,
    applyMs: 20,
    restartMs: 100,
  };
  const fleets = [createFleet({ ...common, agents: direct, gateways: 0 })];
  if (relayed > 0) fleets.push(createFleet({ ...common, agents: relayed, gateways: 8 }));
  for (const f of fleets) await f.start();
  const count = (select: (f: Fleet) => number) => fleets.reduce((n, f) => n + select(f), 0);
  const all = await waitFor(() => count((f) => f.snapshot().connected) >= agents, 180_000, 200);
  if (!all) ctx.log(`  only ${count((f) => f.snapshot().connected)} of ${agents} agents connected`);
  return {
    fleets,
    direct,
    relayed,
    count,
    stop: async () => {
      for (const f of fleets) await f.stop();
    },
  };
}
