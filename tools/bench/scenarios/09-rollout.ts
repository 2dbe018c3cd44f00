// A staged config rollout (docs/jobs.md): 20,000 simulator agents run revision 1 of a 1 KiB config
// kept in PostgreSQL; a draft revision 2 is rolled out in four stages (1, 10 %, 50 %, 100 %) with no
// wait between stages, each agent answering APPLYING, then APPLIED. Measured: the time from arming
// the job to every target succeeded (the job's status), and the server's CPU per target.

import { createHash } from 'node:crypto';
import type { BenchContext, ResultRow, Scenario } from '../scenario.ts';
import { median, round, sleep, waitFor } from '../support/numbers.ts';
import { cpuSeconds } from '../support/procStats.ts';
import { startSimFleets } from '../support/simFleets.ts';
import { benchDatabaseLabel, openBenchDatabase } from '../persistence/benchDatabase.ts';

const token = 'bench-rollout-admin';
const auth = {
  api_tokens: [{ name: 'bench', sha256: createHash('sha256').update(token).digest('hex'), role: 'admin' }],
};
const body = (tag: string) => `# ${tag}\nreceivers: {otlp: {protocols: {grpc: {}}}}\n# ${'x'.repeat(960)}\n`;

async function rollout(ctx: BenchContext, agents: number) {
  const bench = await openBenchDatabase();
  const server = await ctx.startService({
    database: bench.db.config,
    auth,
    fleet: { heartbeat_interval: '30s' },
  });
  const api = async (method: string, path: string, json?: unknown) => {
    const res = await fetch(`${server.uiUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(json !== undefined && { body: JSON.stringify(json) }),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  try {
    await api('POST', '/api/configs', { name: 'fleet', selector: 'service.version=~".+"', body: body('r1') });
    const sim = await startSimFleets(ctx, server.opampUrl, agents);
    try {
      await waitFor(() => sim.count((f) => f.snapshot().configs.applied) >= agents, 180_000, 200);
      await api('PUT', '/api/configs/fleet', { revision: 1, body: body('r2'), draft: true });
      const job = await api('POST', '/api/jobs', {
        filter: 'connected=true',
        action: 'config_rollout',
        submitted_by: 'bench',
        action_config: { config: 'fleet', revision: 2, stages: [1, '10%', '50%', '100%'], wait: '0s' },
      });
      await sleep(1000);
      const cpu0 = cpuSeconds(server.pid);
      const t0 = performance.now();
      await api('POST', `/api/jobs/${String(job.id)}/arm`, { target_mode: 'snapshot' });
      let last: Record<string, unknown> = {};
      const finished = await waitFor(
        async () => {
          last = await api('GET', `/api/jobs/${String(job.id)}?limit=1`);
          return last.status === 'succeeded' || last.status === 'failed' || last.status === 'paused';
        },
        600_000,
        250,
      );
      const seconds = (performance.now() - t0) / 1000;
      const cpu = cpuSeconds(server.pid) - cpu0;
      const counts = (last.target_counts ?? {}) as Record<string, number>;
      if (!finished || last.status !== 'succeeded')
        ctx.log(`  rollout ended ${String(last.status)}: ${JSON.stringify(counts)}`);
      const succeeded = counts.succeeded ?? 0;
      return {
        seconds,
        cpuPerTargetUs: (cpu / Math.max(succeeded, 1)) * 1e6,
        succeeded,
        status: String(last.status),
      };
    } finally {
      await sim.stop();
    }
  } finally {
    await server.stop();
    await bench.close();
  }
}

const scenario: Scenario = {
  order: 9,
  name: 'rollout',
  title: 'Staged config rollout to a connected fleet',
  async run(ctx) {
    const agents = ctx.quick ? 300 : 20_000;
    const runs = [];
    for (let i = 0; i < ctx.runs; i++) runs.push(await rollout(ctx, agents));
    const rows: ResultRow[] = [
      {
        rollout: `4 stages (1, 10 %, 50 %, 100 %), no wait, ${agents} agents`,
        'arming → all succeeded s (median)': round(median(runs.map((r) => r.seconds)), 2),
        'server CPU per target µs (median)': round(median(runs.map((r) => r.cpuPerTargetUs)), 1),
        'targets succeeded': median(runs.map((r) => r.succeeded)),
        'job status': runs.map((r) => r.status).join(', '),
      },
    ];
    return {
      rows,
      conditions: [
        `${agents} simulator agents over WebSocket (as many direct as the open-files limit allows, the rest through 8 gateway connections), each answering APPLYING then APPLIED 20 ms later`,
        `one service with persistence on ${benchDatabaseLabel()}; the job is armed through the API and followed by polling GET /api/jobs/{id} every 250 ms`,
        `${ctx.runs} run(s), medians; the simulator runs on the same two cores as the server`,
      ],
    };
  },
};

export default scenario;
