// A hundred thousand agents on one service process with everything on: agents.tokens set and every
// agent presenting a token (so every id is bound), persistence on embedded PostgreSQL, a 1 KiB
// config rolled out in four gated stages (1, 10 %, 50 %, 100 %) to the whole fleet while 1 % of it
// churns per minute and the API is asked for lists and regex filters. Direct WebSockets as many as
// the open-files limit allows (one fd each in the server), the rest through gateway connections.
// The fleet runs in child processes (support/fleetProcess.ts), never in the benchmark's process.

import { createHash } from 'node:crypto';
import type { BenchContext, Scenario } from '../scenario.ts';
import { round, sleep, waitFor } from '../support/numbers.ts';
import { cpuSeconds, memoryKiB } from '../support/procStats.ts';
import { openBenchDatabase } from '../persistence/benchDatabase.ts';
import { benchToken } from '../support/benchToken.ts';
import { startFleetProcess, type FleetProcess } from '../support/fleetProcess.ts';
import { startListProbe, type ListProbe } from '../support/listProbe.ts';
import type { FleetSnapshot } from '../../simulate/fleet.ts';
import { report } from '../support/fleet100kReport.ts';
import { apiClient, refusals } from '../support/serviceApi.ts';

const adminToken = 'bench-fleet-admin';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const body = (tag: string) => `# ${tag}\nreceivers: {otlp: {protocols: {grpc: {}}}}\n# ${'x'.repeat(960)}\n`;
const finished = new Set(['succeeded', 'failed', 'paused', 'awaiting_promotion', 'cancelled']);
const gates = { max_failed: '2%', max_disconnected: '5%' };
const applyTimeout = '15s';
const queries = [
  ['GET /api/agents (limit 100)', '/api/agents?limit=100'],
  ['GET /api/agents?healthy=true', '/api/agents?healthy=true&limit=100'],
  ['regex: service.name=~"check.*"', `/api/agents?match=${encodeURIComponent('service.name=~"check.*"')}`],
  [
    'regex: host.name=~"sim-host-1.*5"',
    `/api/agents?match=${encodeURIComponent('host.name=~"sim-host-1.*5"')}`,
  ],
] as const;

/** How the fleet is split: direct sockets below the open-files limit, gateways of ≤ 8,000 agents. */
export function fleetShape(ctx: BenchContext) {
  const agents = ctx.quick ? 2000 : 100_000;
  // The server holds one fd per direct socket; leave room for gateways, the database pool, files and
  // the sockets churn holds briefly twice (a reconnect arriving before the old close is seen).
  const direct = ctx.quick ? agents / 2 : Math.min(agents, ctx.fdLimit - 3000);
  const relayed = agents - direct;
  // agents.max_per_gateway is 10,000; 8,000 leaves room for the ids that churn replaces.
  const gateways = relayed > 0 ? Math.ceil(relayed / 8000) : 0;
  return { agents, direct, relayed, gateways };
}

export type FleetRun = Awaited<ReturnType<typeof run>>;

async function run(ctx: BenchContext) {
  const shape = fleetShape(ctx);
  const bench = await openBenchDatabase();
  const server = await ctx.startService({
    database: bench.db.config,
    auth: { api_tokens: [{ name: 'bench', sha256: sha(adminToken), role: 'admin' }] },
    agents: { tokens: [{ name: 'bench', sha256: sha(benchToken), gateway: true }] },
    fleet: { heartbeat_interval: '30s' },
  });
  const headers = { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' };
  const api = apiClient(server.uiUrl, headers);
  const fleets: FleetProcess[] = [];
  let probe: ListProbe | undefined;
  try {
    await sleep(500);
    const rssBefore = memoryKiB(server.pid).rss;
    await api('POST', '/api/configs', { name: 'fleet', selector: 'service.version=~".+"', body: body('r1') });
    const common = {
      url: server.opampUrl,
      transport: 'ws' as const,
      heartbeatMs: 30_000,
      flapRate: 0.01,
      configBytes: 1024,
      attributes: 10,
      rampPerSecond: 5000,
      localAddresses: ctx.localAddresses,
      applyMs: 20,
      restartMs: 100,
      reconnectMs: 5000,
      token: benchToken,
    };
    // 1 % of the fleet per minute, each fleet its share: disconnect + return, restart, or replacement.
    const churn = (n: number) => (n * 0.01) / 60;
    fleets.push(
      startFleetProcess({
        ...common,
        agents: shape.direct,
        gateways: 0,
        churnPerSecond: churn(shape.direct),
      }),
    );
    if (shape.relayed > 0)
      fleets.push(
        startFleetProcess({
          ...common,
          agents: shape.relayed,
          gateways: shape.gateways,
          churnPerSecond: churn(shape.relayed),
        }),
      );
    const snapshots = () => Promise.all(fleets.map((f) => f.snapshot()));
    const sum = (s: readonly FleetSnapshot[], pick: (x: FleetSnapshot) => number) =>
      s.reduce((n, x) => n + pick(x), 0);
    const t0 = performance.now();
    let last: FleetSnapshot[] = [];
    // Churn keeps about (rate × time away) agents out at any moment: settled is 99.5 % up and applied.
    const settledShare = 0.995;
    const up = await waitFor(
      async () => {
        last = await snapshots();
        const enough = shape.agents * settledShare;
        return sum(last, (s) => s.connected) >= enough && sum(last, (s) => s.configs.applied) >= enough;
      },
      ctx.quick ? 60_000 : 300_000,
      1000,
    );
    const connectSeconds = (performance.now() - t0) / 1000;
    ctx.log(
      `  ${sum(last, (s) => s.connected)} connected, ${sum(last, (s) => s.configs.applied)} applied r1 in ${round(connectSeconds, 1)} s`,
    );
    // Not settled (gateways closed while their ids were bound, say): measure the rollout anyway on
    // what is connected; the report says how many were.
    if (!up) ctx.log(`  the fleet did not settle: ${JSON.stringify(last.map((s) => s.errorKinds))}`);
    await sleep(ctx.quick ? 2000 : 10_000);
    const mem = memoryKiB(server.pid);
    const connected = sum(await snapshots(), (s) => s.connected);

    await api('PUT', '/api/configs/fleet', { revision: 1, body: body('r2'), draft: true });
    const job = await api('POST', '/api/jobs', {
      filter: 'connected=true',
      action: 'config_rollout',
      submitted_by: 'bench',
      action_config: {
        config: 'fleet',
        revision: 2,
        stages: [1, '10%', '50%', '100%'],
        wait: '0s',
        gates,
        apply_timeout: applyTimeout,
      },
    });
    const before = await snapshots();
    const cpu0 = cpuSeconds(server.pid);
    const loadCpu0 = fleets.reduce((n, f) => n + cpuSeconds(f.pid), 0);
    probe = startListProbe(server.uiUrl, queries, headers);
    const armedAt = performance.now();
    // An arm the service fails is reported (with the figures measured so far), not thrown.
    const armError = await api('POST', `/api/jobs/${String(job.id)}/arm`, { target_mode: 'snapshot' }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    let status = armError === undefined ? '' : `arm failed (${armError})`;
    let counts: Record<string, number> = {};
    let lastAppliedAt = armedAt;
    // A job read that fails is counted (an error of the run) and tried again at the next poll.
    const jobReadErrors: string[] = [];
    await waitFor(
      async () => {
        if (armError !== undefined) return true;
        const j = await api('GET', `/api/jobs/${String(job.id)}?limit=1`).catch((error: Error) => {
          jobReadErrors.push(error.message);
          return undefined;
        });
        if (j === undefined) return false;
        const c = (j.target_counts ?? {}) as Record<string, number>;
        if ((c.succeeded ?? 0) > (counts.succeeded ?? 0)) lastAppliedAt = performance.now();
        [status, counts] = [String(j.status), c];
        return finished.has(status);
      },
      ctx.quick ? 90_000 : 240_000,
      250,
    );
    const doneAt = performance.now();
    const cpu = cpuSeconds(server.pid) - cpu0;
    const loadCpu = fleets.reduce((n, f) => n + cpuSeconds(f.pid), 0) - loadCpu0;
    const lists = await probe.stop();
    const after = await snapshots();
    const messages = sum(after, (s) => s.sent) - sum(before, (s) => s.sent);
    const refused = await refusals(server.telemetryUrl);
    return {
      shape,
      settled: up,
      jobReadErrors,
      rssBefore,
      mem,
      connected,
      connectSeconds,
      status,
      counts,
      cpu,
      loadCpu,
      messages,
      lists,
      refused,
      rolloutSeconds: (doneAt - armedAt) / 1000,
      lastAppliedSeconds: (lastAppliedAt - armedAt) / 1000,
      fleetErrors: sum(after, (s) => s.errors),
      errorKinds: after.map((s) => s.errorKinds),
      restarts: sum(after, (s) => s.restarts),
    };
  } finally {
    await probe?.stop();
    for (const f of fleets) await f.stop();
    await server.stop();
    await bench.close();
  }
}

export default {
  order: 13,
  name: 'fleet-100k',
  title: '100,000 agents on one process: tokens, persistence, a gated rollout under churn',
  async run(ctx) {
    return report(ctx, await run(ctx), { gates, applyTimeout });
  },
} satisfies Scenario;
