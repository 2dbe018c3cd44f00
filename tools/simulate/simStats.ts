// Counters and reply latencies of a simulation, shared by every transport.

export interface SimStats {
  sent: number;
  replies: number;
  errors: number;
  readonly errorKinds: Map<string, number>;
  /** Reply latencies in ms, a ring of the most recent samples. */
  readonly latencies: Float64Array;
  latencyCount: number;
}

export function createSimStats(): SimStats {
  return {
    sent: 0,
    replies: 0,
    errors: 0,
    errorKinds: new Map(),
    latencies: new Float64Array(100_000),
    latencyCount: 0,
  };
}

export function countError(stats: SimStats, kind: string): void {
  stats.errors++;
  stats.errorKinds.set(kind, (stats.errorKinds.get(kind) ?? 0) + 1);
}

export function addLatency(stats: SimStats, ms: number): void {
  stats.latencies[stats.latencyCount++ % stats.latencies.length] = ms;
}

export function latencyPercentiles(stats: SimStats): { p50: number; p99: number } {
  const n = Math.min(stats.latencyCount, stats.latencies.length);
  if (n === 0) return { p50: 0, p99: 0 };
  const sorted = stats.latencies.slice(0, n).sort();
  const at = (q: number) => Math.round(sorted[Math.min(n - 1, Math.floor(q * n))]! * 100) / 100;
  return { p50: at(0.5), p99: at(0.99) };
}
