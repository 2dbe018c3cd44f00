// Message throughput: status reports processed end to end (decode, translation, events, every
// projection, the reply) per server CPU-second, over WebSocket and HTTP, against bare `ws` and `http`
// servers that only read and answer the same frames (the ceiling). Two traffic mixes
// (support/statusMix.ts): the realistic one (health, effective-config and description changes) gives
// the main rows; the thin one (health deltas only) the second rows. Server CPU time comes from
// /proc/PID/stat.

import type { BenchContext, ResultRow, Scenario } from '../scenario.ts';
import { cpuSeconds, memoryKiB } from '../support/procStats.ts';
import { median, round, sleep } from '../support/numbers.ts';
import { startLoadProcess, type LoadProcess } from '../support/loadProcess.ts';
import { pairedShares, type PairedShares } from '../support/tokenPairs.ts';
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
    // 1.5 s + 5 s (2 s + 8 s before the token pairs grew to 7 each): the scenario stays within ~9 minutes.
    warmupMs: ctx.quick ? 300 : 1500,
    measureMs: ctx.quick ? 700 : 5000,
    /** Token pairs: WebSocket (the goal's row) and HTTP. */
    wsPairs: ctx.quick ? 2 : 7,
    httpPairs: ctx.quick ? 2 : 7,
  };
}

async function measure(ctx: BenchContext, target: Target) {
  const load = loadOf(ctx);
  const server: ServerProcess =
    target.server === 'service'
      ? await ctx.startService({ fleet: { heartbeat_interval: '1h' }, ...(target.tokens ? tokenConfig : {}) })
      : await startBare(target.transport === 'ws' ? 'bareWsServer' : 'bareHttpServer');
  let generator: LoadProcess | undefined;
  try {
    generator = await startLoadProcess({
      transport: target.transport,
      url: server.opampUrl,
      connections: target.transport === 'ws' ? load.wsConnections : load.httpAgents,
      window: load.window,
      mix: target.mix,
      localAddresses: ctx.localAddresses,
      ...(target.tokens ? { token: benchToken } : {}),
    });
    await sleep(load.warmupMs);
    const [cpu0, loadCpu0, start] = [
      cpuSeconds(server.pid),
      cpuSeconds(generator.pid),
      await generator.counts(),
    ];
    const t0 = performance.now();
    await sleep(load.measureMs);
    const end = await generator.counts();
    const cpu = cpuSeconds(server.pid) - cpu0;
    const loadCpu = cpuSeconds(generator.pid) - loadCpu0;
    const replies = end.replies - start.replies;
    const seconds = (performance.now() - t0) / 1000;
    const mem = memoryKiB(server.pid);
    return {
      perCpuSecond: replies / Math.max(cpu, 0.01),
      perSecond: replies / seconds,
      cpu,
      loadCpu,
      errors: end.errors,
      peakKiB: mem.peak,
    };
  } finally {
    await generator?.stop();
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

/** Authentication's cost per message: interleaved pairs on the realistic mix (support/tokenPairs.ts). */
function tokenPairs(ctx: BenchContext, transport: 'ws' | 'http', pairs: number) {
  return pairedShares(
    pairs,
    0.9,
    (tokens) => measure(ctx, { server: 'service', transport, mix: 'realistic', tokens }),
    (i, withTokens, without) =>
      ctx.log(
        `  pair ${i} ${transport}: ${round(withTokens.perCpuSecond)} with tokens, ${round(without.perCpuSecond)} without`,
      ),
  );
}

type Measured = Awaited<ReturnType<typeof measure>>;

const pct = (x: number) => `${round(x * 100, 1)} %`;

/** The authentication goal's figures for one transport: median, spread and interval of the ratios. */
function pairLine(transport: string, p: PairedShares<Measured>): string {
  const interval = p.interval
    ? `${Math.round(p.interval.coverage * 1000) / 10} % interval of the median ${pct(p.interval.low)} – ${pct(p.interval.high)}`
    : 'too few pairs for a 95 % interval';
  return `${transport} ${p.verdict}: median ${pct(p.median)} of ${p.ratios.length} pairs (min ${pct(p.min)}, max ${pct(p.max)}; ${interval})`;
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
        'load generator CPU s': round(median(runs.map((r) => r.loadCpu)), 2),
        'peak RSS MiB': round(median(runs.map((r) => r.peakKiB)) / 1024, 1),
        errors: runs.reduce((a, r) => a + r.errors, 0),
      });
    }
    const load = loadOf(ctx);
    const tokenShares = new Map<'ws' | 'http', PairedShares<Measured>>();
    for (const transport of ['ws', 'http'] as const) {
      const pairs = await tokenPairs(ctx, transport, transport === 'ws' ? load.wsPairs : load.httpPairs);
      const runs = pairs.withRuns;
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
        'load generator CPU s': round(median(runs.map((r) => r.loadCpu)), 2),
        'peak RSS MiB': round(median(runs.map((r) => r.peakKiB)) / 1024, 1),
        errors: runs.reduce((a, r) => a + r.errors, 0),
      });
    }
    const wsShare = perCpu.get('realistic service ws')! / perCpu.get('realistic bare ws')!;
    const http = perCpu.get('realistic service http')!;
    const [ws, httpPairs] = [tokenShares.get('ws')!, tokenShares.get('http')!];
    const without = (p: PairedShares<Measured>) => round(median(p.withoutRuns.map((r) => r.perCpuSecond)));
    return {
      rows,
      conditions: [
        `WebSocket: ${load.wsConnections} agents, one socket each, ${load.window} messages in flight per socket; HTTP: ${load.httpAgents} agents over a keep-alive pool, one request in flight each`,
        'realistic mix: a full first report (10 attributes, health, 1 KiB effective config), then a repeating cycle of a health change (with a component map of 2 pipelines × 3 components), a 1 KiB effective-config change, a health change back and a description change',
        'thin mix: the same first report, then check-ins carrying only a health flag that alternates',
        `every server is started fresh for each run in its own process; ${load.warmupMs / 1000} s of warm-up, then ${load.measureMs / 1000} s measured (shortened from 2 s + 8 s so that the ${load.wsPairs} + ${load.httpPairs} token pairs fit in the scenario’s ~9 minutes); CPU is the server process's utime + stime, read from /proc for that process alone`,
        `the load generator (raw-socket HTTP/1.1 and WebSocket clients sending pre-encoded messages, support/loadClients.ts) runs in a child process of its own (support/loadProcess.ts), not in the benchmark's process, on the same 2 cores as the server; its CPU is reported beside the server's and not counted in the server's; replies are counted in it and read over IPC at the start and end of the measured window`,
        `tokens: agents.tokens set and every agent presenting the token (each id bound to it in the in-memory credential store on its first message); measured in interleaved pairs (a run without tokens and a run with them back to back, the order alternating from pair to pair), WebSocket ${load.wsPairs} pairs, HTTP ${load.httpPairs}; each pair's ratio is its messages per server CPU-second with tokens ÷ without (the pairs' runs without: ws ${without(ws)}, http ${without(httpPairs)} per CPU-s, medians)`,
        'the authentication rule: the goal (cost ≤ 10 %, i.e. ratio ≥ 90 %) is met when the whole distribution-free confidence interval of the median ratio (order statistics of the sign test, ≥ 95 % coverage; with 7 pairs it is [min, max] at 98.4 %) lies at or above 90 %, not met when it lies below, inconclusive when it straddles 90 % or there are fewer than 6 pairs',
        `the main rows: each figure is the median of ${ctx.runs} run(s)`,
      ],
      goals: [
        `WebSocket, realistic mix ≥ 85 % of the bare ws ceiling: ${wsShare >= 0.85 ? 'met' : 'not met'} (${round(wsShare * 100, 1)} %)`,
        `HTTP, realistic mix ≥ 20,000 per CPU-second: ${http >= 20_000 ? 'met' : 'not met'} (${round(http)}; ${round((http / perCpu.get('realistic bare http')!) * 100, 1)} % of bare http)`,
        `authentication costs ≤ 10 % per WebSocket message (with tokens ≥ 90 % of without, interleaved pairs): ${pairLine('ws', ws)}`,
        `authentication costs ≤ 10 % per HTTP message (same rule): ${pairLine('http', httpPairs)}`,
      ],
    };
  },
};

export default scenario;
