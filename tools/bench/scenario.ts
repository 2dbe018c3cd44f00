// What a benchmark scenario is. Each file in tools/bench/scenarios/ default-exports one; the runner
// finds them by listing that directory, so adding a scenario is adding a file.

import type { ServerProcess } from './support/serverProcess.ts';

export interface BenchContext {
  /** A short smoke run: small counts, one run, no goals judged. */
  readonly quick: boolean;
  /** Runs per measurement: every scenario repeats each measurement this often and reports medians. */
  readonly runs: number;
  /** A scratch directory, removed after the whole run. */
  readonly dir: string;
  /** File descriptors one process may hold (RLIMIT_NOFILE); connection counts are capped below it. */
  readonly fdLimit: number;
  /** Source addresses in 127.0.0.0/8 to spread client connections over. */
  readonly localAddresses: readonly string[];
  log(line: string): void;
  startService(config?: Record<string, unknown>): Promise<ServerProcess>;
}

export interface ResultRow {
  readonly [column: string]: string | number;
}

export interface ScenarioResult {
  readonly rows: readonly ResultRow[];
  /**
   * How the figures were obtained, rendered beside the table: load, sizes, durations, how many runs
   * each figure is the median of (or that something is measured once, and why).
   */
  readonly conditions?: readonly string[];
  /** Goal lines with a verdict, e.g. "RSS per agent ≤ 16 KiB: met (9.8 KiB)". */
  readonly goals?: readonly string[];
  readonly notes?: readonly string[];
}

export interface Scenario {
  /** Order in the report: scenarios sort by it. */
  readonly order: number;
  readonly name: string;
  readonly title: string;
  run(ctx: BenchContext): Promise<ScenarioResult>;
}
