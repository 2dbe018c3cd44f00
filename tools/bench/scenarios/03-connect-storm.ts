// Connect storm: as many WebSocket agents as one process may hold (up to 20,000) connect at once, each
// upgrading and sending its first full report (description, health, 1 KiB effective config), against
// the service and, in the same run, against the bare `ws` server (tools/bench/bare/bareWsServer.ts),
// which only upgrades and answers each frame. The figure is the server CPU each new agent costs
// (handshake and first report) as a ratio of the bare server's CPU per handshake and first message.
// The service's /api/status confirms that the registry holds every agent.

import type { BenchContext, ResultRow, Scenario } from '../scenario.ts';
import { median, round } from '../support/numbers.ts';
import { runWsStorm } from '../support/loadClients.ts';
import { cpuSeconds } from '../support/procStats.ts';
import { startBare, type ServerProcess } from '../support/serverProcess.ts';
import { benchToken, tokenConfig } from '../support/benchToken.ts';

const concurrency = 256;

async function registryTotal(uiUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(`${uiUrl}/api/status`);
    if (!res.ok) return undefined;
    return ((await res.json()) as { fleet?: { total?: number } }).fleet?.total;
  } catch {
    return undefined;
  }
}

/**
 * The load generator's garbage from the storms before (19,000 sockets and their buffers each) is
 * collected before a storm starts, so that no storm arrives slower than another because the load
 * generator's own major collection landed in it. `npm run bench` runs node with --expose-gc.
 */
function collectLoadGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function storm(ctx: BenchContext, server: ServerProcess, agents: number, token?: string) {
  collectLoadGarbage();
  const cpu0 = cpuSeconds(server.pid);
  const result = await runWsStorm(server.opampUrl, {
    agents,
    concurrency,
    localAddresses: ctx.localAddresses,
    ...(token === undefined ? {} : { token }),
  });
  const cpu = cpuSeconds(server.pid) - cpu0;
  const inRegistry = server.uiUrl ? await registryTotal(server.uiUrl) : undefined;
  await result.close();
  // Figures only: the result's close() holds every socket of the storm, and the runs are kept.
  const { seconds, answered, errors } = result;
  return { seconds, answered, errors, cpu, cpuPerAgentUs: (cpu / Math.max(answered, 1)) * 1e6, inRegistry };
}

type StormRun = Awaited<ReturnType<typeof storm>>;

async function measure(ctx: BenchContext, agents: number) {
  const bare = await startBare('bareWsServer');
  const bareRun = await storm(ctx, bare, agents).finally(() => bare.stop());
  const service = await ctx.startService({ fleet: { heartbeat_interval: '1h' } });
  const serviceRun = await storm(ctx, service, agents).finally(() => service.stop());
  // The same storm with every agent presenting an enrollment token (each id bound on its first report).
  const tokened = await ctx.startService({ fleet: { heartbeat_interval: '1h' }, ...tokenConfig });
  const tokensRun = await storm(ctx, tokened, agents, benchToken).finally(() => tokened.stop());
  return {
    bare: bareRun,
    service: serviceRun,
    tokens: tokensRun,
    ratio: serviceRun.cpuPerAgentUs / bareRun.cpuPerAgentUs,
    tokenRatio: tokensRun.cpuPerAgentUs / serviceRun.cpuPerAgentUs,
  };
}

const scenario: Scenario = {
  order: 3,
  name: 'connect-storm',
  title: 'Connect storm',
  async run(ctx) {
    // Each socket is one fd in the server and one in this process; leave room for everything else.
    const agents = ctx.quick ? 500 : Math.min(20_000, ctx.fdLimit - 1000);
    const runs: Awaited<ReturnType<typeof measure>>[] = [];
    for (let i = 0; i < ctx.runs; i++) {
      const r = await measure(ctx, agents);
      ctx.log(
        `  run ${i + 1}: bare ${round(r.bare.cpuPerAgentUs)} µs, service ${round(r.service.cpuPerAgentUs)} µs per agent (${round(r.ratio, 2)}×), with tokens ${round(r.tokens.cpuPerAgentUs)} µs (${round(r.tokenRatio, 2)}× without), service done after ${round(r.service.seconds, 2)} s, registry ${r.service.inRegistry ?? 'n/a'}`,
      );
      runs.push(r);
    }
    const row = (label: string, pick: (r: (typeof runs)[number]) => StormRun) => ({
      server: label,
      agents,
      'answered (all runs)': runs.map((r) => pick(r).answered).join(' / '),
      'all answered after s (median)': round(median(runs.map((r) => pick(r).seconds)), 2),
      'server CPU s (median)': round(median(runs.map((r) => pick(r).cpu)), 2),
      'server CPU per agent µs (median)': round(median(runs.map((r) => pick(r).cpuPerAgentUs))),
      errors: runs.reduce((a, r) => a + pick(r).errors, 0),
    });
    const ratio = median(runs.map((r) => r.ratio));
    const rows: ResultRow[] = [
      row('bare ws', (r) => r.bare),
      {
        ...row('this service', (r) => r.service),
        'ratio to bare ws (median)': round(ratio, 2),
        'registry total (GET /api/status)': runs.map((r) => r.service.inRegistry ?? 'n/a').join(' / '),
      },
      {
        ...row('this service, tokens', (r) => r.tokens),
        'ratio to bare ws (median)': round(
          median(runs.map((r) => r.tokens.cpuPerAgentUs / r.bare.cpuPerAgentUs)),
          2,
        ),
        'registry total (GET /api/status)': runs.map((r) => r.tokens.inRegistry ?? 'n/a').join(' / '),
      },
    ];
    const tokenRatio = median(runs.map((r) => r.tokenRatio));
    const allRegistered = runs.every(
      (r) => r.service.answered === agents && r.service.errors === 0 && r.service.inRegistry === agents,
    );
    return {
      rows,
      conditions: [
        `${agents} WebSocket agents per storm (capped below the open-files limit, ${ctx.fdLimit}), at most ${concurrency} connecting at a time, spread over ${ctx.localAddresses.length} source addresses; raw-socket clients in the benchmark process, on the same cores as the server`,
        'this service, tokens: agents.tokens set, every upgrade presents the token and each id is bound to it on its first report (the in-memory credential store)',
        'each agent: WebSocket upgrade, then one first report (10 attributes, health with a component map, 1 KiB effective config), then waits for the reply; sockets stay open until the storm is over',
        'server CPU (utime + stime) from the first connect until every agent had its reply, divided by the agents answered; the bare ws server and the service are stormed one after the other in each run, each started fresh and settled (no CPU used for 200 ms after it printed it was listening), and the load generator collects its own garbage before each storm',
        `each figure is the median of ${ctx.runs} run(s); the ratio is the median of the per-run ratios`,
      ],
      goals: [
        `server CPU per new agent ≤ 1.5× the bare ws server's per handshake and first message: ${ratio <= 1.5 ? 'met' : 'not met'} (${round(ratio, 2)}×)`,
        `all ${agents} registered with no errors: ${allRegistered ? 'met' : 'not met'}`,
        `authentication costs ≤ 10 % per connection (CPU per agent with tokens ≤ 1.1× without): ${tokenRatio <= 1.1 ? 'met' : 'not met'} (${round(tokenRatio, 2)}×)`,
      ],
    };
  },
};

export default scenario;
