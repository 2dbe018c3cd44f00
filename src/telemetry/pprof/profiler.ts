// Profiles of this process from Node's inspector (an in-process session; no debugger port is opened).
// Contract: at most one CPU profile at a time (a second caller gets `busy`); the heap sampler runs from
// start() to stop(), so a heap profile covers the allocations still live that were sampled meanwhile.

import { Session } from 'node:inspector/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { cpuToPprof } from './cpuToPprof.ts';
import { heapToPprof } from './heapToPprof.ts';

/** Go's default CPU sampling rate is 100 Hz; V8's finer default (1 ms) costs little and shows more. */
export const cpuIntervalMicros = 1000;
/** Go's default MemProfileRate: one sample per 512 KiB allocated. */
export const heapIntervalBytes = 512 * 1024;

export type CpuResult =
  { readonly ok: true; readonly pprof: Buffer } | { readonly ok: false; readonly reason: 'busy' | 'aborted' };

export interface Profiler {
  start(): Promise<void>;
  /** A gzipped pprof CPU profile of the next `seconds`; cut short (reason `aborted`) by `signal` or stop(). */
  cpu(seconds: number, signal?: AbortSignal): Promise<CpuResult>;
  /** A gzipped pprof heap profile. */
  heap(): Promise<Buffer>;
  stop(): Promise<void>;
}

export function createProfiler(
  onWarning: (message: string, error: unknown) => void,
  now: () => number = Date.now,
): Profiler {
  const session = new Session();
  const stopping = new AbortController();
  let cpuInFlight: Promise<CpuResult> | undefined;
  let heapSampling = false;

  async function startHeapSampling(): Promise<void> {
    if (heapSampling) return;
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', { samplingInterval: heapIntervalBytes });
    heapSampling = true;
  }

  async function profileCpu(seconds: number, abort: AbortSignal): Promise<CpuResult> {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: cpuIntervalMicros });
    const startedAt = now();
    await session.post('Profiler.start');
    await delay(seconds * 1000, undefined, { signal: abort }).catch(() => undefined);
    const { profile } = await session.post('Profiler.stop');
    await session.post('Profiler.disable');
    if (abort.aborted) return { ok: false, reason: 'aborted' };
    return { ok: true, pprof: gzipSync(cpuToPprof(profile, cpuIntervalMicros, startedAt).encode()) };
  }

  function cpu(seconds: number, signal?: AbortSignal): Promise<CpuResult> {
    if (cpuInFlight !== undefined) return Promise.resolve({ ok: false, reason: 'busy' });
    const abort = signal ? AbortSignal.any([signal, stopping.signal]) : stopping.signal;
    const run = profileCpu(seconds, abort).finally(() => {
      cpuInFlight = undefined;
    });
    cpuInFlight = run;
    return run;
  }

  async function heap(): Promise<Buffer> {
    await startHeapSampling();
    const { profile } = await session.post('HeapProfiler.getSamplingProfile');
    return gzipSync(heapToPprof(profile, heapIntervalBytes, now()).encode());
  }

  return {
    start: async () => {
      session.connect();
      // V8 has one sampling heap profiler per process (another session may hold it): heap() retries.
      await startHeapSampling().catch((error: unknown) => onWarning('heap sampling not started', error));
    },
    cpu,
    heap,
    stop: async () => {
      stopping.abort();
      if (heapSampling) await session.post('HeapProfiler.stopSampling').catch(() => undefined);
      // Let a CPU profile in flight finish its own stop before the session goes away.
      await cpuInFlight?.catch(() => undefined);
      session.disconnect();
    },
  };
}
