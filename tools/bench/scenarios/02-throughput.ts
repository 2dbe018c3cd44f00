// Message throughput: status reports processed end to end (decode, translation, events, every
// projection, the reply) per server CPU-second, over WebSocket and HTTP, against bare `ws` and `http`
// servers that only read and answer the same frames (the ceiling). Two traffic mixes
// (support/statusMix.ts): the realistic one (health, effective-config and description changes) gives
// the main rows; the thin one (health deltas only) the second rows. Server CPU time comes from
// /proc/PID/stat.

import type { BenchContext, ResultRow, Scenario } from '../scenario.ts';
import { cpuSeconds, memoryKiB } from '../support/procStats.ts';
import { median, round, sleep } from '../support/numbers.ts';
import { runHttpLoad, runWsLoad, type LoadCounters } from '../support/loadClients.ts';
import { startBare, type ServerProcess } from '../support/serverProcess.ts';
import type { StatusMix } from '../support/statusMix.ts';
import { benchToken, tokenConfig } from '../support/benchToken.ts';

/** `tokens`: the service with agents.tokens set, every agent presenting the token. */
type Target = { server: 'service' | 'bare'; transport: 'ws' | 'http'; mix: StatusMix; tokens?: boolean };

function loadOf(ctx: BenchContext) {
  return {
    wsConnections: ctx.quick ? 4 : 500,
    window: 4,
    httpAgents: ctx.quick ? 4 : 200,
    warmupMs: ctx.quick ? 300 : 2000,
    measureMs: ctx.quick ? 700 : 8000,
  };
}

async function measure(ctx: BenchContext, target: Target) {
  const load = loadOf(ctx);
  const server: ServerProcess =
    target.server === 'service'
      ? await ctx.startService({ fleet: { heartbeat_interval: '1h' }, ...(target.tokens ? tokenConfig : {}) })
      : await startBare(target.transport === 'ws' ? 'bareWsServer' : 'bareHttpServer');
  try {
    const counters: LoadCounters = { replies: 0, errors: 0 };
    const stop =
      target.transport === 'ws'
        ? await runWsLoad(
            server.opampUrl,
            {
              connections: load.wsConnections,
              window: load.window,
              mix: target.mix,
              localAddresses: ctx.localAddresses,
              ...(target.tokens ? { token: benchToken } : {}),
            },
            counters,
          )
        : await runHttpLoad(
            server.opampUrl,
            {
              agents: load.httpAgents,
              mix: target.mix,
              localAddresses: ctx.localAddresses,
              ...(target.tokens ? { token: benchToken } : {}),
            },
            counters,
          );
    await sleep(load.warmupMs);
    const cpu0 = cpuSeconds(server.pid);
    const replies0 = counters.replies;
    const t0 = performance.now();
    await sleep(load.measureMs);
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

const targets: Target[] = [
  ...(['realistic', 'thin'] as const).flatMap((mix) =>
    (['ws', 'http'] as const).flatMap((transport) =>
      (['bare', 'service'] as const).map((server) => ({ server, transport, mix })),
    ),
  ),
];

/**
 * Authentication's cost per message: the realistic mix with every agent presenting a token, each run
 * right after a run without tokens. The machine's rate drifts by more than the cost over the minutes
 * between the main rows and these, so the share compares the runs of each pair (median of the
 * pairs' ratios), not a token run with a row measured minutes before.
 */
async function tokenPairs(ctx: BenchContext, transport: 'ws' | 'http') {
  const [without, withTokens, shares] = [[], [], []] as [
    number[],
    Awaited<ReturnType<typeof measure>>[],
    number[],
  ];
  for (let i = 0; i < ctx.runs; i++) {
    const base = await measure(ctx, { server: 'service', transport, mix: 'realistic' });
    const tokens = await measure(ctx, { server: 'service', transport, mix: 'realistic', tokens: true });
    without.push(base.perCpuSecond);
    withTokens.push(tokens);
    shares.push(tokens.perCpuSecond / base.perCpuSecond);
    ctx.log(
      `  pair ${i + 1} ${transport}: ${round(tokens.perCpuSecond)} with tokens, ${round(base.perCpuSecond)} without`,
    );
  }
  return { without: median(without), runs: withTokens, share: median(shares) };
}

const scenario: Scenario = {
  order: 2,
  name: 'throughput',
  title: 'Message throughput (status reports per server CPU-second)',
  async run(ctx) {
    const rows: ResultRow[] = [];
    const perCpu = new Map<string, number>();
    for (const target of targets) {
      const runs = [];
      for (let i = 0; i < ctx.runs; i++) runs.push(await measure(ctx, target));
      const key = `${target.mix} ${target.server}${target.tokens ? '+tokens' : ''} ${target.transport}`;
      const m = median(runs.map((r) => r.perCpuSecond));
      perCpu.set(key, m);
      ctx.log(`  ${key}: ${round(m)} msg per CPU-s`);
      const bare = perCpu.get(`${target.mix} bare ${target.transport}`)!;
      rows.push({
        mix: target.mix,
        server:
          target.server === 'bare'
            ? `bare ${target.transport}`
            : target.tokens
              ? 'this service, tokens'
              : 'this service',
        transport: target.transport,
        'messages / server CPU-s (median)': round(m),
        'share of bare': round(m / bare, 2),
        'messages / s (wall)': round(median(runs.map((r) => r.perSecond))),
        'server CPU s': round(median(runs.map((r) => r.cpu)), 2),
        'peak RSS MiB': round(median(runs.map((r) => r.peakKiB)) / 1024, 1),
        errors: runs.reduce((a, r) => a + r.errors, 0),
      });
    }
    const tokenShares = new Map<string, { share: number; without: number }>();
    for (const transport of ['ws', 'http'] as const) {
      const pairs = await tokenPairs(ctx, transport);
      const runs = pairs.runs;
      const m = median(runs.map((r) => r.perCpuSecond));
      tokenShares.set(transport, pairs);
      rows.push({
        mix: 'realistic',
        server: 'this service, tokens',
        transport,
        'messages / server CPU-s (median)': round(m),
        'share of bare': round(m / perCpu.get(`realistic bare ${transport}`)!, 2),
        'messages / s (wall)': round(median(runs.map((r) => r.perSecond))),
        'server CPU s': round(median(runs.map((r) => r.cpu)), 2),
        'peak RSS MiB': round(median(runs.map((r) => r.peakKiB)) / 1024, 1),
        errors: runs.reduce((a, r) => a + r.errors, 0),
      });
    }
    const wsShare = perCpu.get('realistic service ws')! / perCpu.get('realistic bare ws')!;
    const http = perCpu.get('realistic service http')!;
    /** Messages per CPU-second with tokens, as a share of without in the same pair (1 = free). */
    const [wsTokens, httpTokens] = [tokenShares.get('ws')!.share, tokenShares.get('http')!.share];
    const load = loadOf(ctx);
    return {
      rows,
      conditions: [
        `WebSocket: ${load.wsConnections} agents, one socket each, ${load.window} messages in flight per socket; HTTP: ${load.httpAgents} agents over a keep-alive pool, one request in flight each`,
        'realistic mix: a full first report (10 attributes, health, 1 KiB effective config), then a repeating cycle of a health change (with a component map of 2 pipelines × 3 components), a 1 KiB effective-config change, a health change back and a description change',
        'thin mix: the same first report, then check-ins carrying only a health flag that alternates',
        `every server is started fresh for each run in its own process; ${load.warmupMs / 1000} s of warm-up, then ${load.measureMs / 1000} s measured; CPU is the server process's utime + stime`,
        `tokens: agents.tokens set and every agent presenting the token (each id bound to it in the in-memory credential store on its first message); each run with tokens follows a run without them (the pairs' runs without: ws ${round(tokenShares.get('ws')!.without)}, http ${round(tokenShares.get('http')!.without)} per CPU-s), and the cost is the median of the pairs' ratios`,
        `each figure is the median of ${ctx.runs} run(s); the load generator (raw-socket HTTP/1.1 and WebSocket clients sending pre-encoded messages) runs in the benchmark process, on the same cores as the server`,
      ],
      goals: [
        `WebSocket, realistic mix ≥ 70 % of the bare ws ceiling: ${wsShare >= 0.7 ? 'met' : 'not met'} (${round(wsShare * 100, 1)} %)`,
        `HTTP, realistic mix ≥ 20,000 per CPU-second: ${http >= 20_000 ? 'met' : 'not met'} (${round(http)}; ${round((http / perCpu.get('realistic bare http')!) * 100, 1)} % of bare http)`,
        `authentication costs ≤ 10 % per message (realistic mix with tokens ≥ 90 % of without, median of paired runs): ${Math.min(wsTokens, httpTokens) >= 0.9 ? 'met' : 'not met'} (ws ${round(wsTokens * 100, 1)} %, http ${round(httpTokens * 100, 1)} %)`,
      ],
    };
  },
};

export default scenario;
