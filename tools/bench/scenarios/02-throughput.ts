// Message throughput: status reports processed end to end (decode, translation, events, every
// projection, the reply) per server CPU-second, over WebSocket and HTTP, against bare `ws` and `http`
// servers that only read and answer the same frames (the ceiling). Two traffic mixes
// (support/statusMix.ts): the realistic one (health, effective-config and description changes) gives
// the main rows; the thin one (health deltas only) the second rows. The realistic mix runs once more
// against the service with enrollment tokens on (agents.tokens; every request presents one), which
// gives the cost of authentication per message. Server CPU time comes from /proc/PID/stat.

import type { BenchContext, ResultRow, Scenario } from '../scenario.ts';
import { cpuSeconds, memoryKiB } from '../support/procStats.ts';
import { median, round, sleep } from '../support/numbers.ts';
import { runHttpLoad, runWsLoad, type LoadCounters } from '../support/loadClients.ts';
import { startBare, type ServerProcess } from '../support/serverProcess.ts';
import type { StatusMix } from '../support/statusMix.ts';
import { benchToken, tokensOn } from '../support/enrollmentToken.ts';

type Target = { server: 'service' | 'service+tokens' | 'bare'; transport: 'ws' | 'http'; mix: StatusMix };

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
    target.server === 'bare'
      ? await startBare(target.transport === 'ws' ? 'bareWsServer' : 'bareHttpServer')
      : await ctx.startService({
          fleet: { heartbeat_interval: '1h' },
          ...(target.server === 'service+tokens' ? tokensOn : {}),
        });
  const token = target.server === 'service+tokens' ? benchToken : undefined;
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
              token,
            },
            counters,
          )
        : await runHttpLoad(
            server.opampUrl,
            { agents: load.httpAgents, mix: target.mix, localAddresses: ctx.localAddresses, token },
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

const targets: Target[] = (['realistic', 'thin'] as const).flatMap((mix) =>
  (['ws', 'http'] as const).flatMap((transport) =>
    (mix === 'realistic'
      ? (['bare', 'service', 'service+tokens'] as const)
      : (['bare', 'service'] as const)
    ).map((server) => ({ server, transport, mix })),
  ),
);

const serverLabel = (target: Target) =>
  target.server === 'bare'
    ? `bare ${target.transport}`
    : target.server === 'service'
      ? 'this service'
      : 'this service, tokens on';

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
      const key = `${target.mix} ${target.server} ${target.transport}`;
      const m = median(runs.map((r) => r.perCpuSecond));
      perCpu.set(key, m);
      ctx.log(`  ${key}: ${round(m)} msg per CPU-s`);
      const bare = perCpu.get(`${target.mix} bare ${target.transport}`)!;
      rows.push({
        mix: target.mix,
        server: serverLabel(target),
        transport: target.transport,
        'messages / server CPU-s (median)': round(m),
        'share of bare': round(m / bare, 2),
        'messages / s (wall)': round(median(runs.map((r) => r.perSecond))),
        'server CPU s': round(median(runs.map((r) => r.cpu)), 2),
        'peak RSS MiB': round(median(runs.map((r) => r.peakKiB)) / 1024, 1),
        errors: runs.reduce((a, r) => a + r.errors, 0),
      });
    }
    const wsShare = perCpu.get('realistic service ws')! / perCpu.get('realistic bare ws')!;
    const http = perCpu.get('realistic service http')!;
    const load = loadOf(ctx);
    const tokenShare = (transport: string) =>
      perCpu.get(`realistic service+tokens ${transport}`)! / perCpu.get(`realistic service ${transport}`)!;
    const tokenGoal = (transport: string) => {
      const share = tokenShare(transport);
      return `${transport === 'ws' ? 'WebSocket' : 'HTTP'}, realistic mix, tokens on ≥ 90 % of tokens off: ${share >= 0.9 ? 'met' : 'not met'} (${round(share * 100, 1)} %)`;
    };
    return {
      rows,
      conditions: [
        `WebSocket: ${load.wsConnections} agents, one socket each, ${load.window} messages in flight per socket; HTTP: ${load.httpAgents} agents over a keep-alive pool, one request in flight each`,
        'realistic mix: a full first report (10 attributes, health, 1 KiB effective config), then a repeating cycle of a health change (with a component map of 2 pipelines × 3 components), a 1 KiB effective-config change, a health change back and a description change',
        'thin mix: the same first report, then check-ins carrying only a health flag that alternates',
        'tokens on: agents.tokens holds one token hash; every WebSocket upgrade and every HTTP request carries `Authorization: Bearer` with it',
        `every server is started fresh for each run in its own process; ${load.warmupMs / 1000} s of warm-up, then ${load.measureMs / 1000} s measured; CPU is the server process's utime + stime`,
        `each figure is the median of ${ctx.runs} run(s); the load generator (raw-socket HTTP/1.1 and WebSocket clients sending pre-encoded messages) runs in the benchmark process, on the same cores as the server`,
      ],
      goals: [
        `WebSocket, realistic mix ≥ 70 % of the bare ws ceiling: ${wsShare >= 0.7 ? 'met' : 'not met'} (${round(wsShare * 100, 1)} %)`,
        `HTTP, realistic mix ≥ 20,000 per CPU-second: ${http >= 20_000 ? 'met' : 'not met'} (${round(http)}; ${round((http / perCpu.get('realistic bare http')!) * 100, 1)} % of bare http)`,
        tokenGoal('ws'),
        tokenGoal('http'),
      ],
    };
  },
};

export default scenario;
