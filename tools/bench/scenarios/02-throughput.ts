// Message throughput: status reports processed end to end (decode, events, every projection) per
// server CPU-second, over WebSocket and HTTP, against bare `ws` and `http` servers that only read and
// answer the same frames (the ceiling). Server CPU time comes from /proc/PID/stat.

import type { BenchContext, ResultRow, Scenario } from '../scenario.ts';
import { cpuSeconds, memoryKiB } from '../support/procStats.ts';
import { median, round, sleep } from '../support/numbers.ts';
import { runHttpLoad, runWsLoad, type LoadCounters } from '../support/loadClients.ts';
import { startBare, type ServerProcess } from '../support/serverProcess.ts';

type Target = { server: 'service' | 'bare'; transport: 'ws' | 'http' };

async function measure(ctx: BenchContext, target: Target) {
  const server: ServerProcess =
    target.server === 'service'
      ? await ctx.startService({ fleet: { heartbeat_interval: '1h' } })
      : await startBare(target.transport === 'ws' ? 'bareWsServer' : 'bareHttpServer');
  try {
    const counters: LoadCounters = { replies: 0, errors: 0 };
    const stop =
      target.transport === 'ws'
        ? await runWsLoad(server.opampUrl, ctx.quick ? 4 : 50, 16, counters)
        : runHttpLoad(server.opampUrl, ctx.quick ? 4 : 64, counters);
    await sleep(ctx.quick ? 300 : 2000); // warm-up
    const cpu0 = cpuSeconds(server.pid);
    const replies0 = counters.replies;
    const t0 = performance.now();
    await sleep(ctx.quick ? 700 : 8000);
    const cpu = cpuSeconds(server.pid) - cpu0;
    const replies = counters.replies - replies0;
    const seconds = (performance.now() - t0) / 1000;
    const mem = memoryKiB(server.pid);
    await stop();
    return {
      perCpuSecond: replies / Math.max(cpu, 0.01),
      perSecond: replies / seconds,
      cpu,
      errors: counters.errors,
      peakKiB: mem.peak,
    };
  } finally {
    await server.stop();
  }
}

const scenario: Scenario = {
  order: 2,
  name: 'throughput',
  title: 'Message throughput (status reports per server CPU-second)',
  async run(ctx) {
    const targets: Target[] = [
      { server: 'bare', transport: 'ws' },
      { server: 'service', transport: 'ws' },
      { server: 'bare', transport: 'http' },
      { server: 'service', transport: 'http' },
    ];
    const rows: ResultRow[] = [];
    const perCpu = new Map<string, number>();
    for (const target of targets) {
      const runs = [];
      for (let i = 0; i < ctx.runs; i++) runs.push(await measure(ctx, target));
      const key = `${target.server} ${target.transport}`;
      const m = median(runs.map((r) => r.perCpuSecond));
      perCpu.set(key, m);
      ctx.log(`  ${key}: ${round(m)} msg per CPU-s`);
      rows.push({
        server:
          target.server === 'service' ? 'this service' : `bare ${target.transport === 'ws' ? 'ws' : 'http'}`,
        transport: target.transport,
        'messages / server CPU-s (median)': round(m),
        'messages / s (wall)': round(median(runs.map((r) => r.perSecond))),
        'server CPU s': round(median(runs.map((r) => r.cpu)), 2),
        'peak RSS MiB': round(median(runs.map((r) => r.peakKiB)) / 1024, 1),
        errors: runs.reduce((a, r) => a + r.errors, 0),
      });
    }
    const wsRatio = perCpu.get('service ws')! / perCpu.get('bare ws')!;
    const http = perCpu.get('service http')!;
    return {
      rows,
      goals: [
        `WebSocket ≥ 60 % of the bare ws ceiling: ${wsRatio >= 0.6 ? 'met' : 'not met'} (${round(wsRatio * 100, 1)} %)`,
        `HTTP ≥ 12,000 per CPU-second: ${http >= 12_000 ? 'met' : 'not met'} (${round(http)}; ${round((http / perCpu.get('bare http')!) * 100, 1)} % of bare http)`,
      ],
    };
  },
};

export default scenario;
