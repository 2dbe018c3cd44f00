// The job metrics (docs/jobs.md "Metrics"), on the fleet registry, registered only with persistence
// (jobs need the database): svc_jobs{status} and svc_job_targets{action,state} read the database at
// scrape time (the job stepper keeps per-job target counts, so the read is small);
// svc_job_gate_trips_total{gate} counts the gate trips of the steps this replica ran.

import { Counter, Gauge, type Registry as PromRegistry } from 'prom-client';
import type { FleetCountersProjection } from '../projections/metrics/fleetCounters.ts';

export interface JobCountsSource {
  (): Promise<{
    readonly jobs: Readonly<Partial<Record<string, number>>>;
    readonly targets: readonly { readonly action: string; readonly state: string; readonly n: number }[];
  }>;
}

const statuses = ['planned', 'armed', 'running', 'paused', 'succeeded', 'failed', 'cancelled'];
const gates = ['max_failed', 'max_unhealthy', 'max_disconnected'];

export function registerJobMetrics(
  register: PromRegistry,
  counts: JobCountsSource,
  counters: FleetCountersProjection,
): void {
  const registers = [register];
  // One read per scrape, shared by both gauges.
  let pending: ReturnType<JobCountsSource> | undefined;
  const read = () => {
    pending ??= counts().finally(() => queueMicrotask(() => (pending = undefined)));
    return pending;
  };
  new Gauge({
    name: 'svc_jobs',
    help: 'Jobs by status.',
    labelNames: ['status'],
    registers,
    async collect() {
      const { jobs } = await read();
      for (const status of statuses) this.set({ status }, jobs[status] ?? 0);
    },
  });
  new Gauge({
    name: 'svc_job_targets',
    help: 'Job targets by action and state.',
    labelNames: ['action', 'state'],
    registers,
    async collect() {
      this.reset();
      for (const { action, state, n } of (await read()).targets) this.set({ action, state }, n);
    },
  });
  new Counter({
    name: 'svc_job_gate_trips_total',
    help: 'Rollout gates tripped (the job paused), by gate.',
    labelNames: ['gate'],
    registers,
    collect() {
      this.reset();
      const trips = counters.current().gateTrips;
      for (const gate of gates) this.inc({ gate }, trips[gate] ?? 0);
    },
  });
}
