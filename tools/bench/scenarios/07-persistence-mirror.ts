// Persistence: database-backed fleet lists (docs/persistence.md "Fleet lists") of a service whose
// database holds 100,000 agents it does not hold itself, as a sibling replica's would. Measured:
// - the first list after the service started (there is no startup read of the stored agents);
// - GET /api/agents (limit 100) of the service, sequential requests for 20 s while a sibling
//   flushes 2,000 changed agents every second; goal p99 ≤ 100 ms;
// - the time from a sibling's flush (its commit) to the agents' new values in the service's list;
//   goal ≤ 1 s.

import type { ResultRow, Scenario } from '../scenario.ts';
import { percentile, round, sleep } from '../support/numbers.ts';
import { openBenchDatabase } from '../persistence/benchDatabase.ts';
import { createSibling } from '../persistence/sibling.ts';

async function timedList(url: string, expectTotal: number): Promise<number> {
  const t = performance.now();
  const res = await fetch(url);
  const body = (await res.json()) as { total: number; partial: boolean };
  const ms = performance.now() - t;
  if (res.status !== 200 || body.partial || body.total !== expectTotal)
    throw new Error(`unexpected list: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
  return ms;
}

/** One measurement (its unit in its name): median, p99 and worst of its samples. */
const row = (measurement: string, count: number, samples: number[], digits = 1): ResultRow => ({
  measurement,
  'stored agents': count,
  samples: samples.length,
  p50: round(percentile(samples, 0.5), digits),
  p99: round(percentile(samples, 0.99), digits),
  max: round(Math.max(...samples), digits),
});

const scenario: Scenario = {
  order: 7,
  name: 'persistence-mirror',
  title: 'Persistence: database-backed fleet lists at 100,000 stored agents while a sibling flushes',
  async run(ctx) {
    const count = ctx.quick ? 2000 : 100_000;
    const batch = ctx.quick ? 200 : 2000;
    const bench = await openBenchDatabase();
    try {
      const sibling = createSibling(bench.pools, count, batch);
      await sibling.seed();
      await bench.pools.write.query('VACUUM ANALYZE agents, agent_session');
      const server = await ctx.startService({
        database: bench.db.config,
        fleet: { heartbeat_interval: '1h' },
      });
      const rows: ResultRow[] = [];
      const goals: string[] = [];
      try {
        const url = `${server.uiUrl}/api/agents`;
        const first = await timedList(url, count);
        for (let i = 0; i < 5; i++) await timedList(url, count);
        const busy = sibling.keepFlushing(1000);
        const plain: number[] = [];
        const regex: number[] = [];
        const end = performance.now() + (ctx.quick ? 3000 : 20_000);
        const regexUrl = `${url}?match=${encodeURIComponent('service.name=~"svc-1.*"')}`;
        // svc-1 and svc-10..svc-19 of the 50 service names.
        while (performance.now() < end) {
          plain.push(await timedList(url, count));
          if (plain.length % 4 === 0) regex.push(await timedList(regexUrl, (count / 50) * 11));
        }
        const flushes = await busy.stop();

        const visible: number[] = [];
        for (let k = 0; k < (ctx.quick ? 3 : 10); k++) {
          await sleep(300);
          const version = `seen-${k}`;
          await sibling.flush(version);
          const committed = performance.now();
          const probe = `${url}?limit=1&service.version=${version}`;
          for (;;) {
            const body = (await (await fetch(probe)).json()) as { total: number };
            if (body.total === batch) break;
            if (performance.now() - committed > 30_000) throw new Error(`flush ${version} never listed`);
          }
          visible.push(performance.now() - committed);
        }

        const p99 = percentile(plain, 0.99);
        const worst = Math.max(...visible);
        rows.push(
          row('GET /api/agents (limit 100), sibling flushing, ms', count, plain),
          row('GET /api/agents?match=service.name=~"svc-1.*", sibling flushing, ms', count, regex),
          row("sibling's flush (commit) → new values in the list, ms", count, visible),
          row(`sibling's flush of ${batch} changed agents (its write), ms`, count, flushes, 0),
          row('first GET /api/agents after the service started, ms', count, [first]),
        );
        goals.push(
          `merged list p99 ≤ 100 ms while a sibling flushes: ${p99 <= 100 ? 'met' : 'not met'} (${round(p99, 1)} ms)`,
          `sibling's flush visible ≤ 1 s: ${worst <= 1000 ? 'met' : 'not met'} (worst of ${visible.length}: ${round(worst)} ms)`,
        );
      } finally {
        await server.stop();
      }
      return {
        rows,
        goals,
        conditions: [
          `${bench.label}; the service holds none of the stored agents (each list is answered by the database and merged with the empty registry)`,
          `the sibling flushes ${batch} changed agents (new last_seen and service.version, 1 KiB config each) every second while lists run; visibility probes poll GET /api/agents?service.version=… until all ${batch} show`,
          `lists: one ${ctx.quick ? 3 : 20}-second window of back-to-back requests (every fourth a regex), percentiles over all its requests; visibility: ${ctx.quick ? 3 : 10} flushes, each probed once`,
          'one service process; the benchmark process, the embedded PostgreSQL and the service share the two cores',
        ],
      };
    } finally {
      await bench.close();
    }
  },
};

export default scenario;
