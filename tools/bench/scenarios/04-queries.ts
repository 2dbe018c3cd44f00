// Queries at scale: 100,000 agents registered (over HTTP, one full report each), then GET /api/agents
// unfiltered, with a boolean filter and with one regex matcher, and a /metrics/fleet scrape: p50 and
// p99 latency of sequential requests.

import type { ResultRow, Scenario } from '../scenario.ts';
import { createFleet } from '../../simulate/fleet.ts';
import { percentile, round, waitFor } from '../support/numbers.ts';

async function timeRequests(
  url: string,
  count: number,
): Promise<{ p50: number; p99: number; status: number; bytes: number }> {
  const times: number[] = [];
  let status = 0;
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const res = await fetch(url);
    const body = await res.arrayBuffer();
    times.push(performance.now() - t);
    status = res.status;
    bytes = body.byteLength;
  }
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), status, bytes };
}

const scenario: Scenario = {
  order: 4,
  name: 'queries',
  title: 'Queries at scale',
  async run(ctx) {
    const agents = ctx.quick ? 1000 : 100_000;
    const server = await ctx.startService({ fleet: { heartbeat_interval: '1h' } });
    try {
      const fleet = createFleet({
        url: server.opampUrl,
        agents,
        transport: 'http',
        gateways: 0,
        heartbeatMs: 3_600_000,
        flapRate: 0,
        configBytes: 256,
        attributes: 10,
        churnPerSecond: 0,
        rampPerSecond: 0,
        localAddresses: ctx.localAddresses,
      });
      const t0 = performance.now();
      await fleet.start();
      // Heartbeats may add replies; the first report of every agent is what counts here.
      await waitFor(() => fleet.stats.replies + fleet.stats.errors >= agents, 600_000, 50);
      const loadSeconds = (performance.now() - t0) / 1000;
      ctx.log(`  ${agents} agents registered in ${round(loadSeconds, 1)} s (${fleet.stats.errors} errors)`);
      await fleet.stop();
      const n = ctx.quick ? 10 : 200;
      const queries: [string, string, number][] = [
        ['GET /api/agents (unfiltered, limit 100)', `${server.uiUrl}/api/agents`, n],
        ['GET /api/agents?healthy=true', `${server.uiUrl}/api/agents?healthy=true`, n],
        [
          'GET /api/agents?match=service.name=~"check.*"',
          `${server.uiUrl}/api/agents?match=${encodeURIComponent('service.name=~"check.*"')}`,
          n,
        ],
        ['GET /metrics/fleet', `${server.telemetryUrl}/metrics/fleet`, ctx.quick ? 3 : 20],
      ];
      const rows: ResultRow[] = [];
      let regexP99 = NaN;
      for (const [label, url, count] of queries) {
        await timeRequests(url, Math.min(5, count)); // warm-up
        const r = await timeRequests(url, count);
        if (label.includes('match=')) regexP99 = r.status === 200 ? r.p99 : NaN;
        ctx.log(`  ${label}: p50 ${round(r.p50, 1)} ms, p99 ${round(r.p99, 1)} ms (HTTP ${r.status})`);
        rows.push({
          query: label,
          agents,
          requests: count,
          status: r.status,
          'p50 ms': round(r.p50, 1),
          'p99 ms': round(r.p99, 1),
          'response KiB': round(r.bytes / 1024, 1),
        });
      }
      return {
        rows,
        goals: [
          `regex matcher p99 ≤ 50 ms: ${regexP99 <= 50 ? 'met' : 'not met'} (${round(regexP99, 1)} ms)`,
        ],
        notes: [`registering ${agents} agents over HTTP took ${round(loadSeconds, 1)} s`],
      };
    } finally {
      await server.stop();
    }
  },
};

export default scenario;
