// fleet-1m: database-backed fleet lists (docs/persistence.md "Fleet lists") with 1,000,000 stored
// agents and two service replicas on one PostgreSQL, neither holding any of them itself. Stored
// fast with generate_series (seedFleet.ts), first 100,000 and then the rest, and measured at both
// sizes on both replicas:
// - GET /api/agents pages (limit 100) with their totals: unfiltered, an attribute equality, a regex
//   PostgreSQL evaluates (regexSql.ts's subset), and a regex only RE2 evaluates; goal p99 ≤ 200 ms
//   for the paged filtered lists at 1,000,000;
// - the RSS of each replica after the lists: goal independent of the stored fleet's size;
// - the time from a sibling's flush (the service's own writer, its commit) to the new values in a
//   replica's list; goal ≤ 1 s.

import type { ResultRow, Scenario } from '../scenario.ts';
import { percentile, round, sleep } from '../support/numbers.ts';
import { memoryKiB } from '../support/procStats.ts';
import { openBenchDatabase } from '../persistence/benchDatabase.ts';
import { seedFleet } from '../persistence/seedFleet.ts';
import { createSibling } from '../persistence/sibling.ts';
import type { ServerProcess } from '../support/serverProcess.ts';

interface Query {
  readonly name: string;
  readonly query: string;
  /** The filtered set's size at `stored` agents (seedFleet.ts's attributes). */
  readonly total: (stored: number) => number;
  readonly filtered: boolean;
}

/** Agents n < stored with n % 50 in `rests`. */
const withRest = (stored: number, rests: number[]) =>
  rests.reduce((sum, r) => sum + Math.floor((stored - 1 - r) / 50) + 1, 0);

const queries: readonly Query[] = [
  { name: 'unfiltered page', query: 'limit=100', total: (n) => n, filtered: false },
  {
    name: 'service.name=svc-7',
    query: 'limit=100&service.name=svc-7',
    total: (n) => withRest(n, [7]),
    filtered: true,
  },
  {
    name: 'service.name=~"svc-1.*" (one term: total from the counts)',
    query: `limit=100&match=${encodeURIComponent('service.name=~"svc-1.*"')}`,
    total: (n) => withRest(n, [1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]),
    filtered: true,
  },
  {
    name: 'service.name=~"svc-[1]7", env=prod (two terms: total from the rows)',
    query: `limit=100&match=${encodeURIComponent('service.name=~"svc-[1]7", deployment.environment=prod')}`,
    total: (n) => withRest(n, [17]),
    filtered: true,
  },
];

async function timedList(url: string, expectTotal: number): Promise<number> {
  const t = performance.now();
  const res = await fetch(url);
  const body = (await res.json()) as { total: number; partial: boolean; agents: unknown[] };
  const ms = performance.now() - t;
  if (res.status !== 200 || body.partial || body.total !== expectTotal)
    throw new Error(
      `unexpected list ${url}: ${res.status} ${JSON.stringify(body).slice(0, 200)} (want ${expectTotal})`,
    );
  return ms;
}

const row = (measurement: string, stored: number, samples: number[], digits = 1): ResultRow => ({
  measurement,
  'stored agents': stored,
  samples: samples.length,
  failed: 0,
  p50: round(percentile(samples, 0.5), digits),
  p99: round(percentile(samples, 0.99), digits),
  max: round(Math.max(...samples), digits),
});

const scenario: Scenario = {
  order: 14,
  name: 'fleet-1m',
  title: 'Fleet lists answered by PostgreSQL at 1,000,000 stored agents, two replicas',
  async run(ctx) {
    const sizes = ctx.quick ? [10_000, 50_000] : [100_000, 1_000_000];
    const samples = ctx.quick ? 5 : 25;
    const batch = ctx.quick ? 200 : 2000;
    const bench = await openBenchDatabase();
    const rows: ResultRow[] = [];
    const goals: string[] = [];
    const rss: Record<number, number[]> = {};
    let replicas: ServerProcess[] = [];
    try {
      let seeded = 0;
      const t0 = performance.now();
      await seedFleet(bench.pools, 0, sizes[0]!);
      seeded = sizes[0]!;
      ctx.log(`  stored ${seeded} agents in ${round((performance.now() - t0) / 1000, 1)} s`);
      const config = { database: bench.db.config, fleet: { heartbeat_interval: '1h' } };
      replicas = [await ctx.startService(config), await ctx.startService(config)];
      const filteredP99: number[] = [];
      for (const stored of sizes) {
        if (stored > seeded) {
          const t = performance.now();
          await seedFleet(bench.pools, seeded, stored);
          seeded = stored;
          ctx.log(`  stored ${seeded} agents in ${round((performance.now() - t) / 1000, 1)} s`);
        }
        for (const q of queries) {
          const times: number[] = [];
          const failures: string[] = [];
          // Alternate the replicas; the first request of each warms its plan cache. At most
          // `samples` rounds or 20 s per list, whichever ends first (at least two rounds).
          const end = performance.now() + 20_000;
          for (let i = -1; i < samples && (i < 2 || performance.now() < end); i++)
            for (const r of replicas) {
              const t = await timedList(`${r.uiUrl}/api/agents?${q.query}`, q.total(stored)).catch(
                (e: unknown) => (failures.push(String(e)), undefined),
              );
              if (i >= 0 && t !== undefined) times.push(t);
            }
          if (failures.length > 0)
            ctx.log(`  ${q.name} at ${stored}: ${failures.length} failed: ${failures[0]}`);
          rows.push({
            ...row(`GET /api/agents?${q.name}, limit 100, ms`, stored, times.length ? times : [NaN]),
            failed: failures.length,
          });
          if (stored === sizes.at(-1) && q.filtered)
            filteredP99.push(failures.length > 0 ? Infinity : percentile(times, 0.99));
        }
        rss[stored] = replicas.map((r) => memoryKiB(r.pid).rss / 1024);
        rows.push({
          measurement: 'replica RSS after the lists, MiB (A, B)',
          'stored agents': stored,
          samples: 2,
          failed: 0,
          p50: round(rss[stored][0]!, 1),
          p99: round(rss[stored][1]!, 1),
          max: round(Math.max(...rss[stored]), 1),
        });
      }

      const stored = sizes.at(-1)!;
      const sibling = createSibling(bench.pools, stored, batch);
      const visible: number[] = [];
      for (let k = 0; k < (ctx.quick ? 3 : 10); k++) {
        await sleep(200);
        const version = `seen-${k}`;
        await sibling.flush(version);
        const committed = performance.now();
        const probe = `${replicas[k % 2]!.uiUrl}/api/agents?limit=1&service.version=${version}`;
        for (;;) {
          const body = (await (await fetch(probe)).json()) as { total: number };
          if (body.total === batch) break;
          if (performance.now() - committed > 30_000) throw new Error(`flush ${version} never listed`);
        }
        visible.push(performance.now() - committed);
      }
      rows.push(
        row(
          `sibling's flush of ${batch} agents (commit) → new values in a replica's list, ms`,
          stored,
          visible,
        ),
      );

      const worstFiltered = Math.max(...filteredP99);
      const [small, large] = sizes.map((s) => Math.max(...rss[s]!)) as [number, number];
      const worstVisible = Math.max(...visible);
      goals.push(
        `paged filtered list p99 ≤ 200 ms at ${stored} stored agents: ${worstFiltered <= 200 ? 'met' : 'not met'} (worst filter's p99 ${round(worstFiltered, 1)} ms)`,
        `replica RSS independent of the stored fleet: ${large <= small * 1.25 ? 'met' : 'not met'} (${round(small, 1)} MiB at ${sizes[0]}, ${round(large, 1)} MiB at ${stored})`,
        `sibling's flush visible ≤ 1 s: ${worstVisible <= 1000 ? 'met' : 'not met'} (worst of ${visible.length}: ${round(worstVisible)} ms)`,
      );
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
      await bench.close();
    }
    return {
      rows,
      goals,
      conditions: [
        `${bench.label}; ${sizes.join(' then ')} stored agents (generate_series, no effective configs), two service replicas holding none of them`,
        `each list: up to ${samples} requests per replica (at most 20 s per list, at least 2), back to back, alternating replicas, after one warm-up request each; an answer with another total or partial true counts as failed (the read pool's 5 s query timeout ends a list as partial)`,
        'RSS read from /proc after each size’s lists (the goal allows 25 % between sizes)',
        `freshness: ${ctx.quick ? 3 : 10} flushes of ${batch} changed agents by the service's own writer, each polled on one replica (alternating) until all show`,
        'the benchmark process, the embedded PostgreSQL and both replicas share the two cores',
      ],
    };
  },
};

export default scenario;
