// Connect storm: 20,000 agents connecting within 2 s (a ramp of 10,000/s), each sending a full first
// report. Measures the time from the first connect until every agent had its first reply: the handler
// folds into the registry before it replies, so that is when the registry holds all of them; the
// service's /api/status confirms the count. WebSocket agents are capped below RLIMIT_NOFILE; the rest
// connect over HTTP.

import type { BenchContext, ResultRow, Scenario } from '../scenario.ts';
import { createFleet } from '../../simulate/fleet.ts';
import { median, round, waitFor } from '../support/numbers.ts';
import { cpuSeconds } from '../support/procStats.ts';

async function registryTotal(uiUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(`${uiUrl}/api/status`);
    if (!res.ok) return undefined;
    return ((await res.json()) as { fleet?: { total?: number } }).fleet?.total;
  } catch {
    return undefined;
  }
}

async function measure(ctx: BenchContext, total: number, ws: number) {
  const server = await ctx.startService({ fleet: { heartbeat_interval: '1h' } });
  try {
    const common = {
      url: server.opampUrl,
      heartbeatMs: 3_600_000,
      flapRate: 0,
      configBytes: 1024,
      attributes: 10,
      churnPerSecond: 0,
      rampPerSecond: ctx.quick ? 2000 : 10_000,
      gateways: 0,
      localAddresses: ctx.localAddresses,
    };
    const fleets = [createFleet({ ...common, agents: ws, transport: 'ws' })];
    if (total > ws) fleets.push(createFleet({ ...common, agents: total - ws, transport: 'http' }));
    const cpu0 = cpuSeconds(server.pid);
    const t0 = performance.now();
    await Promise.all(fleets.map((f) => f.start()));
    const rampSeconds = (performance.now() - t0) / 1000;
    const registered = () => fleets.reduce((n, f) => n + f.stats.replies, 0) >= total;
    await waitFor(registered, 60_000, 5);
    const allSeconds = (performance.now() - t0) / 1000;
    const serverCpu = cpuSeconds(server.pid) - cpu0;
    const inRegistry = await registryTotal(server.uiUrl);
    const errors = fleets.reduce((n, f) => n + f.snapshot().errors, 0);
    const replies = fleets.reduce((n, f) => n + f.stats.replies, 0);
    await Promise.all(fleets.map((f) => f.stop()));
    return { rampSeconds, allSeconds, serverCpu, inRegistry, errors, replies };
  } finally {
    await server.stop();
  }
}

const scenario: Scenario = {
  order: 3,
  name: 'connect-storm',
  title: 'Connect storm',
  async run(ctx) {
    const total = ctx.quick ? 500 : 20_000;
    const ws = Math.min(total, ctx.fdLimit - 1000);
    const runs = [];
    for (let i = 0; i < ctx.runs; i++) {
      const r = await measure(ctx, total, ws);
      ctx.log(
        `  run ${i + 1}: all ${total} registered after ${round(r.allSeconds, 2)} s, ${r.errors} errors, registry ${r.inRegistry ?? 'n/a'}`,
      );
      runs.push(r);
    }
    const all = median(runs.map((r) => r.allSeconds));
    const rows: ResultRow[] = [
      {
        agents: total,
        transports: ws === total ? 'ws' : `${ws} ws + ${total - ws} http`,
        'connects issued within s (median)': round(median(runs.map((r) => r.rampSeconds)), 2),
        'all registered after s (median)': round(all, 2),
        'server CPU s (median)': round(median(runs.map((r) => r.serverCpu)), 2),
        'registry total (GET /api/status)': runs.map((r) => r.inRegistry ?? 'n/a').join(' / '),
        errors: runs.reduce((a, r) => a + r.errors, 0),
      },
    ];
    const allRegistered = runs.every(
      (r) => r.replies >= total && (r.inRegistry === undefined || r.inRegistry === total),
    );
    return {
      rows,
      goals: [
        `all ${total} registered with no errors: ${allRegistered && runs.every((r) => r.errors === 0) ? 'met' : 'not met'}`,
        `registry complete within 2 s of the first connect: ${all <= 2 ? 'met' : 'not met'} (${round(all, 2)} s)`,
      ],
    };
  },
};

export default scenario;
