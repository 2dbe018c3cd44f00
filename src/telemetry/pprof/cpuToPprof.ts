// A V8 CPU profile (inspector Profiler.stop) as a pprof Profile, with the sample types Go's
// /debug/pprof/profile uses: samples/count and cpu/nanoseconds. Pure.

import { Profile, Sample, ValueType } from 'pprof-format';
import type { Profiler } from 'node:inspector';
import { createPprofTables } from './pprofBuilder.ts';

export function cpuToPprof(profile: Profiler.Profile, intervalMicros: number, wallStartMs: number): Profile {
  const tables = createPprofTables();
  const { stringTable } = tables;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

  // Per sampled node: how many samples and how much time. A sample lasts until the next one
  // (timeDeltas[i + 1]); the last one lasts its sampling interval.
  const hits = new Map<number, { count: number; nanos: number }>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  samples.forEach((nodeId, i) => {
    const micros = deltas[i + 1] ?? intervalMicros;
    const h = hits.get(nodeId) ?? { count: 0, nanos: 0 };
    h.count++;
    h.nanos += Math.max(0, micros) * 1000;
    hits.set(nodeId, h);
  });

  const sample: Sample[] = [];
  for (const [nodeId, h] of hits) {
    const locationId: number[] = [];
    // Leaf first, up to (not including) the root node, as pprof expects.
    for (let id: number | undefined = nodeId; id !== undefined; id = parent.get(id)) {
      const node = nodes.get(id);
      if (node === undefined || !parent.has(id)) break;
      locationId.push(tables.locationOf(id, node.callFrame));
    }
    sample.push(new Sample({ locationId, value: [h.count, h.nanos] }));
  }

  const cpuNanos = new ValueType({ type: stringTable.dedup('cpu'), unit: stringTable.dedup('nanoseconds') });
  return new Profile({
    sampleType: [
      new ValueType({ type: stringTable.dedup('samples'), unit: stringTable.dedup('count') }),
      cpuNanos,
    ],
    sample,
    location: tables.locations,
    function: tables.functions,
    stringTable,
    timeNanos: BigInt(Math.round(wallStartMs)) * 1_000_000n,
    durationNanos: Math.max(0, profile.endTime - profile.startTime) * 1000,
    periodType: cpuNanos,
    period: intervalMicros * 1000,
  });
}
