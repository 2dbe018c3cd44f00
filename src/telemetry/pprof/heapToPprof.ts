// A V8 sampling heap profile (inspector HeapProfiler.getSamplingProfile) as a pprof Profile with Go's
// in-use sample types: inuse_objects/count and inuse_space/bytes. V8 reports sampled allocations that
// are still live, which is what Go's default heap view (inuse_space) shows. Pure.

import { Profile, Sample, ValueType } from 'pprof-format';
import type { Runtime } from 'node:inspector';
import { createPprofTables } from './pprofBuilder.ts';

/** HeapProfiler.SamplingHeapProfile as V8 sends it (Node's bundled typings predate `id` and `samples`). */
export interface SamplingHeapProfile {
  readonly head: SamplingHeapProfileNode;
  readonly samples?: readonly { readonly nodeId: number; readonly size: number }[];
}
export interface SamplingHeapProfileNode {
  readonly callFrame: Runtime.CallFrame;
  readonly selfSize: number;
  readonly id?: number;
  readonly children: readonly SamplingHeapProfileNode[];
}

export function heapToPprof(
  profile: SamplingHeapProfile,
  samplingIntervalBytes: number,
  wallTimeMs: number,
): Profile {
  const tables = createPprofTables();
  const { stringTable } = tables;
  const objects = new Map<number, number>();
  for (const s of profile.samples ?? []) objects.set(s.nodeId, (objects.get(s.nodeId) ?? 0) + 1);

  const sample: Sample[] = [];
  // Depth-first with an explicit stack: call trees can be deeper than the JS call stack allows.
  const pending: { node: SamplingHeapProfileNode; path: number[] }[] = [{ node: profile.head, path: [] }];
  let visited = 0;
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { node } = item;
    const isRoot = node === profile.head;
    // Leaf first, as pprof expects; the synthetic root is not a frame. Each node is visited once,
    // so the visit number identifies its location.
    const path = isRoot ? item.path : [tables.locationOf(++visited, node.callFrame), ...item.path];
    if (!isRoot && node.selfSize > 0) {
      const count = node.id === undefined ? 0 : (objects.get(node.id) ?? 0);
      sample.push(new Sample({ locationId: path, value: [count, node.selfSize] }));
    }
    for (const child of node.children) pending.push({ node: child, path });
  }

  const space = new ValueType({ type: stringTable.dedup('space'), unit: stringTable.dedup('bytes') });
  return new Profile({
    sampleType: [
      new ValueType({ type: stringTable.dedup('inuse_objects'), unit: stringTable.dedup('count') }),
      new ValueType({ type: stringTable.dedup('inuse_space'), unit: stringTable.dedup('bytes') }),
    ],
    sample,
    location: tables.locations,
    function: tables.functions,
    stringTable,
    timeNanos: BigInt(Math.round(wallTimeMs)) * 1_000_000n,
    periodType: space,
    period: samplingIntervalBytes,
  });
}
