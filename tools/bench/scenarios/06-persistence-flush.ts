// Persistence: one flush of 100,000 changed agents with 1 KiB effective configs, through the
// service's own writer (guarded UNNEST upserts in chunked transactions, written concurrently as the
// service does with database.pool_max 10; SVC_BENCH_CONCURRENCY and SVC_BENCH_CHUNK override). Goal: within one 5 s window.

import { defaultWritePolicy } from '../../../src/persistence/database/writeOp.ts';
import { createAgentWriter } from '../../../src/persistence/agents/agentWriter.ts';
import type { ResultRow, Scenario } from '../scenario.ts';
import { median, round } from '../support/numbers.ts';
import { defaultWriteConcurrency, openBenchDatabase, syntheticAgent } from '../persistence/benchDatabase.ts';

const scenario: Scenario = {
  order: 6,
  name: 'persistence-flush',
  title: 'Persistence: flush of 100,000 changed agents',
  async run(ctx) {
    const count = ctx.quick ? 2000 : 100_000;
    const bench = await openBenchDatabase();
    const concurrency = Number(process.env.SVC_BENCH_CONCURRENCY ?? defaultWriteConcurrency());
    const chunkSize = Number(process.env.SVC_BENCH_CHUNK ?? 5000);
    try {
      const writer = createAgentWriter(bench.pools.write, {
        policy: defaultWritePolicy,
        observe: () => undefined,
        concurrency,
        chunkSize,
      });
      const times = { insert: [] as number[], update: [] as number[] };
      let lastSeen = 1_800_000_000_000;
      for (let run = 0; run < ctx.runs; run++) {
        await bench.pools.write.query('TRUNCATE agents CASCADE');
        for (const kind of ['insert', 'update'] as const) {
          lastSeen += 1000;
          const agents = Array.from({ length: count }, (_, n) => syntheticAgent(n, lastSeen));
          const t = performance.now();
          const result = await writer.saveAgents(agents);
          const ms = performance.now() - t;
          if (result.failed.length > 0)
            throw new Error(`flush failed for ${result.failed.length} agents: ${String(result.error)}`);
          if (result.applied.size !== count)
            throw new Error(`only ${result.applied.size} of ${count} rows changed`);
          times[kind].push(ms);
          ctx.log(`  ${kind}: ${count} agents in ${round(ms)} ms`);
        }
      }
      const rows: ResultRow[] = (['insert', 'update'] as const).map((kind) => ({
        flush:
          kind === 'insert'
            ? 'first flush (rows inserted)'
            : 'changed agents (rows updated, configs replaced)',
        agents: count,
        'median ms': round(median(times[kind])),
        'agents/s': round(count / (median(times[kind]) / 1000)),
      }));
      const update = median(times.update);
      return {
        rows,
        conditions: [
          `${bench.label}; the service's own agent writer (guarded UNNEST upserts), chunks of ${chunkSize} agents per transaction, ${concurrency} transactions at a time (the service's defaults: database.pool_max 10, write_concurrency 2)`,
          `${count} agents with 1 KiB effective configs and 6 attributes; each run truncates the table, then times the first flush (inserts) and a second one with every agent changed (updates)`,
          `each figure is the median of ${ctx.runs} run(s)`,
        ],
        goals: [
          `flush of ${count} changed agents ≤ 5000 ms: ${update <= 5000 ? 'met' : 'not met'} (${round(update)} ms)`,
        ],
      };
    } finally {
      await bench.close();
    }
  },
};

export default scenario;
