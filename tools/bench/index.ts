// The benchmark runner: `npm run bench [-- --quick] [-- --only a,b] [-- --runs N] [-- --write]`.
// Every scenario file in tools/bench/scenarios/ runs in order; each starts its servers in their own
// processes on 127.0.0.1 and stops them. Prints a Markdown report; --write also puts it into
// BENCHMARKS.md. Exit code 1 when a scenario failed to run (a goal not met is reported, not failed).

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { BenchContext, Scenario } from './scenario.ts';
import { machineLine, renderReport, writeIntoBenchmarks, type ScenarioOutcome } from './report.ts';
import { repoRoot, startService, type ServerProcess } from './support/serverProcess.ts';

function openFilesLimit(): number {
  const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return m ? Number(m[1]) : 1024;
}

async function loadScenarios(only: readonly string[]): Promise<Scenario[]> {
  const dir = new URL('./scenarios/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  const scenarios = await Promise.all(
    files.map(async (f) => ((await import(new URL(f, dir).href)) as { default: Scenario }).default),
  );
  const unknown = only.filter((n) => !scenarios.some((s) => s.name === n));
  if (unknown.length > 0)
    throw new Error(
      `unknown scenario(s): ${unknown.join(', ')}; known: ${scenarios.map((s) => s.name).join(', ')}`,
    );
  return scenarios
    .filter((s) => only.length === 0 || only.includes(s.name))
    .sort((a, b) => a.order - b.order);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      runs: { type: 'string' },
      only: { type: 'string' },
      write: { type: 'boolean', default: false },
    },
  });
  const quick = values.quick;
  const runs = values.runs !== undefined ? Math.max(1, Number(values.runs)) : quick ? 1 : 3;
  const only =
    values.only
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) ?? [];
  const scenarios = await loadScenarios(only);
  const dir = mkdtempSync(join(tmpdir(), 'opamp-bench-'));
  const servers = new Set<ServerProcess>();
  const ctx: BenchContext = {
    quick,
    runs,
    dir,
    fdLimit: openFilesLimit(),
    localAddresses: Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 1}`),
    log: (line) => process.stderr.write(`${line}\n`),
    async startService(config) {
      const s = await startService(dir, config);
      servers.add(s);
      return { ...s, stop: () => (servers.delete(s), s.stop()) };
    },
  };
  // Interrupted: stop the servers under test and remove the scratch directory before leaving.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void Promise.all([...servers].map((s) => s.stop())).finally(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(130);
      });
    });
  }
  ctx.log(
    `bench: ${scenarios.map((s) => s.name).join(', ')}; ${runs} run(s); open-files limit ${ctx.fdLimit}`,
  );
  const outcomes: ScenarioOutcome[] = [];
  try {
    for (const s of scenarios) {
      ctx.log(`${s.name}: ${s.title}`);
      const t0 = performance.now();
      try {
        outcomes.push({
          name: s.name,
          title: s.title,
          result: await s.run(ctx),
          seconds: (performance.now() - t0) / 1000,
        });
      } catch (error) {
        ctx.log(`  failed: ${(error as Error).stack ?? String(error)}`);
        outcomes.push({
          name: s.name,
          title: s.title,
          error: (error as Error).message,
          seconds: (performance.now() - t0) / 1000,
        });
      }
    }
  } finally {
    await Promise.all([...servers].map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
  const report = renderReport(outcomes, machineLine(quick));
  process.stdout.write(report);
  if (values.write) writeIntoBenchmarks(join(repoRoot, 'BENCHMARKS.md'), report);
  return outcomes.some((o) => o.error !== undefined) ? 1 : 0;
}

process.exitCode = await main();
