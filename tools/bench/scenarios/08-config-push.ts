// Remote config pushed to a connected fleet (docs/remote-config.md): 20,000 simulator agents run a
// 1 KiB config from remote_config.dir; the file changes, the service pushes the new config to every
// WebSocket agent at once (heartbeats are 30 s apart), and each agent answers APPLYING, then
// APPLIED. Measured: the time from the change until every agent reports APPLIED for the new hash,
// and the server's CPU per delivered config. Then the memory cost of a large shared config: server
// RSS per agent with a 16 KiB config assigned to every agent, against the same fleet without one.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext, ResultRow, Scenario } from '../scenario.ts';
import { median, round, sleep, waitFor } from '../support/numbers.ts';
import { cpuSeconds, memoryKiB } from '../support/procStats.ts';
import { startSimFleets } from '../support/simFleets.ts';

const configFile = (bytes: number, tag: string) =>
  `selector: 'service.version=~".+"'\nbody: |\n  # ${tag}\n  receivers: {otlp: {protocols: {grpc: {}}}}\n  # ${'x'.repeat(Math.max(0, bytes - 60))}\n`;

async function push(ctx: BenchContext, agents: number) {
  const dir = join(ctx.dir, `configs-${Date.now()}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'base.yaml'), configFile(1024, 'v1'));
  const server = await ctx.startService({ remote_config: { dir }, fleet: { heartbeat_interval: '30s' } });
  try {
    const sim = await startSimFleets(ctx, server.opampUrl, agents);
    const applied = () => sim.count((f) => f.snapshot().configs.applied);
    await waitFor(() => applied() >= agents, 120_000, 200);
    const runningHashes = () => new Set(sim.fleets.flatMap((f) => Object.keys(f.snapshot().configs.byHash)));
    const [before] = runningHashes();
    await sleep(1000);
    const cpu0 = cpuSeconds(server.pid);
    const t0 = performance.now();
    writeFileSync(join(dir, 'base.yaml'), configFile(1024, 'v2'));
    // Every agent has left the old hash and applied the new one.
    const moved = () => {
      const now = runningHashes();
      return now.size === 1 && !now.has(before ?? '') && applied() >= agents;
    };
    await waitFor(moved, 180_000, 20);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(server.pid) - cpu0;
    const done = applied();
    await sim.stop();
    return { seconds, cpuPerConfigUs: (cpu / Math.max(done, 1)) * 1e6, done, cpu };
  } finally {
    await server.stop();
  }
}

async function footprint(ctx: BenchContext, agents: number, configBytes: number | undefined) {
  const dir = join(ctx.dir, `configs-${Date.now()}`);
  mkdirSync(dir);
  if (configBytes !== undefined) writeFileSync(join(dir, 'big.yaml'), configFile(configBytes, 'large'));
  const server = await ctx.startService({ remote_config: { dir }, fleet: { heartbeat_interval: '30s' } });
  try {
    await sleep(500);
    const before = memoryKiB(server.pid).rss;
    const sim = await startSimFleets(ctx, server.opampUrl, agents);
    if (configBytes !== undefined)
      await waitFor(() => sim.count((f) => f.snapshot().configs.applied) >= agents, 120_000, 200);
    await sleep(ctx.quick ? 500 : 5000);
    const perAgent = (memoryKiB(server.pid).rss - before) / agents;
    await sim.stop();
    return perAgent;
  } finally {
    await server.stop();
  }
}

const scenario: Scenario = {
  order: 8,
  name: 'config-push',
  title: 'Remote config pushed to a connected fleet',
  async run(ctx) {
    const agents = ctx.quick ? 300 : 20_000;
    const pushes = [];
    for (let i = 0; i < ctx.runs; i++) pushes.push(await push(ctx, agents));
    const without = [];
    const with16 = [];
    for (let i = 0; i < ctx.runs; i++) {
      without.push(await footprint(ctx, agents, undefined));
      with16.push(await footprint(ctx, agents, 16 * 1024));
    }
    const seconds = median(pushes.map((p) => p.seconds));
    const noConfig = median(without);
    const bigConfig = median(with16);
    const rows: ResultRow[] = [
      {
        measurement: `1 KiB config changed, pushed to ${agents} agents`,
        'all APPLIED after s (median)': round(seconds, 2),
        'server CPU per delivered config µs': round(median(pushes.map((p) => p.cpuPerConfigUs)), 1),
        'configs applied': median(pushes.map((p) => p.done)),
      },
      { measurement: `RSS per agent, no config`, 'RSS per agent KiB (median)': round(noConfig, 2) },
      {
        measurement: `RSS per agent, 16 KiB config on every agent`,
        'RSS per agent KiB (median)': round(bigConfig, 2),
      },
    ];
    return {
      rows,
      conditions: [
        `${agents} simulator agents over WebSocket (as many direct as the open-files limit allows, the rest through 8 gateway connections), heartbeats every 30 s, each answering APPLYING then APPLIED 20 ms later`,
        'configs from remote_config.dir; the push is timed from the file write (the directory watch sees it) to the last APPLIED',
        `${ctx.runs} run(s) per figure, medians; the simulator runs on the same two cores as the server`,
      ],
      goals: [
        `RSS per agent with a 16 KiB config within 1 KiB of the figure without: ${Math.abs(bigConfig - noConfig) <= 1 ? 'met' : 'not met'} (${round(bigConfig - noConfig, 2)} KiB)`,
      ],
    };
  },
};

export default scenario;
