// Queries at scale while the fleet churns: 100,000 agents registered over HTTP (one full report
// each), then, for the rest of the scenario, about 1 % of them per second report a change (the
// realistic mix of statusMix.ts: health, 1 KiB effective config, description), new agents register
// and go silent, and the sweep disconnects and evicts agents. After a warm-up long enough for
// evictions to be under way, each run times sequential GET /api/agents (unfiltered, a boolean filter,
// one regex matcher) and /metrics/fleet scrapes: p50 and p99. The fleet and its churn run in a worker
// thread (support/churnWorker.ts), so that their garbage collections do not delay the timed requests.

import type { BenchContext, ResultRow, Scenario } from '../scenario.ts';
import { Worker } from 'node:worker_threads';
import type { ChurnReport, ChurnRequest, ChurnSettings } from '../support/churnWorker.ts';
import { median, percentile, round, sleep } from '../support/numbers.ts';
import type { ServerProcess } from '../support/serverProcess.ts';

/**
 * Sequential requests. A request that fails at the connection level (a keep-alive connection the
 * server closed as it was reused) is counted and sent again once; its time is not a sample.
 */
async function timeRequests(url: string, count: number) {
  const times: number[] = [];
  let status = 0;
  let bytes = 0;
  let failed = 0;
  for (let i = 0; i < count; i++) {
    for (let attempt = 0; ; attempt++) {
      const t = performance.now();
      try {
        const res = await fetch(url);
        const body = await res.arrayBuffer();
        times.push(performance.now() - t);
        status = res.status;
        bytes = body.byteLength;
        break;
      } catch (error) {
        failed++;
        if (attempt > 0) throw error;
      }
    }
  }
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), status, bytes, failed };
}

async function fleetCounter(server: ServerProcess, name: string): Promise<number> {
  const text = await (await fetch(`${server.telemetryUrl}/metrics/fleet`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

/** The fleet and its churn in a worker thread (support/churnWorker.ts). */
async function startChurn(settings: ChurnSettings) {
  const worker = new Worker(new URL('../support/churnWorker.ts', import.meta.url), { workerData: settings });
  const reports: ((report: ChurnReport) => void)[] = [];
  worker.on('message', (report: ChurnReport) => reports.shift()?.(report));
  const ask = <T extends ChurnReport['type']>(type: T, request?: ChurnRequest) =>
    new Promise<Extract<ChurnReport, { type: T }>>((resolve, reject) => {
      const failed = (error: Error) => reject(error);
      worker.once('error', failed);
      reports.push((report) => {
        worker.off('error', failed);
        if (report.type === type) resolve(report as Extract<ChurnReport, { type: T }>);
        else reject(new Error(`churn worker answered ${report.type}, not ${type}`));
      });
      if (request) worker.postMessage(request);
    });
  const registered = await ask('registered');
  return {
    registered,
    counts: async () => (await ask('counts', { type: 'counts' })).counts,
    stop: async () => {
      await ask('stopped', { type: 'stop' });
      await worker.terminate();
    },
    terminate: () => worker.terminate(),
  };
}

function settings(ctx: BenchContext) {
  return ctx.quick
    ? {
        agents: 2000,
        heartbeat: '4s',
        evictAfterS: 12,
        warmupS: 3,
        requests: 10,
        scrapes: 3,
        newPerSecond: 5,
      }
    : {
        agents: 100_000,
        heartbeat: '40s',
        evictAfterS: 120,
        warmupS: 130,
        requests: 200,
        scrapes: 20,
        newPerSecond: 20,
      };
}

const scenario: Scenario = {
  order: 4,
  name: 'queries',
  title: 'Queries at scale, while the fleet churns',
  async run(ctx) {
    const s = settings(ctx);
    const server = await ctx.startService({
      fleet: { heartbeat_interval: s.heartbeat, stale_missed_heartbeats: 3 },
    });
    let churn: Awaited<ReturnType<typeof startChurn>> | undefined;
    try {
      churn = await startChurn({
        url: server.opampUrl,
        agents: s.agents,
        changesPerSecond: s.agents / 100,
        newPerSecond: s.newPerSecond,
        localAddresses: ctx.localAddresses,
      });
      const { seconds: loadSeconds, failed } = churn.registered;
      ctx.log(`  ${s.agents} agents registered in ${round(loadSeconds, 1)} s (${failed} failed)`);
      await sleep(s.warmupS * 1000);
      const queries: [string, string, number][] = [
        ['GET /api/agents (unfiltered, limit 100)', `${server.uiUrl}/api/agents`, s.requests],
        ['GET /api/agents?healthy=true', `${server.uiUrl}/api/agents?healthy=true`, s.requests],
        [
          'GET /api/agents?match=service.name=~"check.*"',
          `${server.uiUrl}/api/agents?match=${encodeURIComponent('service.name=~"check.*"')}`,
          s.requests,
        ],
        ['GET /metrics/fleet', `${server.telemetryUrl}/metrics/fleet`, s.scrapes],
      ];
      const windows: Awaited<ReturnType<typeof timeRequests>>[][] = [];
      const evicted0 = await fleetCounter(server, 'svc_agents_evicted_total');
      const churn0 = await churn.counts();
      const w0 = performance.now();
      for (let run = 0; run < ctx.runs; run++) {
        const results = [];
        for (const [label, url, count] of queries) {
          const r = await timeRequests(url, count);
          ctx.log(`  run ${run + 1}, ${label}: p50 ${round(r.p50, 1)} ms, p99 ${round(r.p99, 1)} ms`);
          results.push(r);
        }
        windows.push(results);
      }
      const windowSeconds = (performance.now() - w0) / 1000;
      const evicted = (await fleetCounter(server, 'svc_agents_evicted_total')) - evicted0;
      const churned = await churn.counts();
      await churn.stop();
      churn = undefined;
      const rate = (n: number) => round(n / windowSeconds);
      const rows: ResultRow[] = queries.map(([label, , count], q) => ({
        query: label,
        agents: s.agents,
        'requests per run': count,
        status: windows.map((w) => w[q]!.status).join(' / '),
        'p50 ms (median)': round(median(windows.map((w) => w[q]!.p50)), 1),
        'p99 ms (median)': round(median(windows.map((w) => w[q]!.p99)), 1),
        'response KiB': round(windows[0]![q]!.bytes / 1024, 1),
        'failed and retried': windows.reduce((n, w) => n + w[q]!.failed, 0),
      }));
      const regexP99 = median(windows.map((w) => (w[2]!.status === 200 ? w[2]!.p99 : NaN)));
      return {
        rows,
        conditions: [
          `${s.agents} agents registered over HTTP first (${round(loadSeconds, 1)} s, ${failed} failed); fleet.heartbeat_interval ${s.heartbeat}, so the sweep disconnects agents silent for 1.5 intervals and evicts them after ${s.evictAfterS} s`,
          `churn throughout, from a worker thread of the benchmark process (so that its collections do not delay the timed requests) over 64 keep-alive HTTP connections: ${s.agents / 100} reports of changes per second (1 % of the fleet; round-robin; health, 1 KiB effective config and description changes) and ${s.newPerSecond} new agents per second that report once and go silent`,
          `queries started after ${s.warmupS} s of churn; while they ran: ${rate(churned.changes - churn0.changes)} changes/s and ${rate(churned.registrations - churn0.registrations)} registrations/s answered, ${rate(evicted)} evictions/s (svc_agents_evicted_total), ${churned.errors} churn errors`,
          `sequential requests from the benchmark process; each figure is the median over ${ctx.runs} run(s) (measurement windows one after the other on the same churning service) of that window's p50 or p99`,
        ],
        goals: [
          `regex matcher p99 ≤ 50 ms: ${regexP99 <= 50 ? 'met' : 'not met'} (${round(regexP99, 1)} ms)`,
        ],
      };
    } finally {
      await churn?.terminate();
      await server.stop();
    }
  },
};

export default scenario;
