// The persistence metrics (SPEC "Metrics": fleet registry table "Persistence metrics", and
// svc_list_agents_store_fallback_errors_total on the server registry). Registered only when
// database.host is set (rule 1), through Telemetry.persistenceMetrics and Telemetry.storeFallbacks;
// the sink the first returns is the implementation of persistence's own metrics port
// (src/persistence/persistenceMetrics.ts), matched by shape, so neither edge imports the other. The
// fallback counter is apart: the fleet reader (web) counts it, not persistence.

import { Counter, Gauge, Histogram, type Registry as PromRegistry } from 'prom-client';

export type WriteOp = 'save_agent' | 'soft_delete_agent' | 'save_session';
export type ListSurface = 'api' | 'ui';

export interface PersistenceGaugeSources {
  /** Configured write timeout of each operation, in seconds (set once, at registration). */
  readonly writeTimeoutSeconds: Readonly<Record<WriteOp, number>>;
  /** Read at scrape time: connections in use and the configured maximum (database.pool_max). */
  pool(): { readonly acquired: number; readonly max: number };
}

export interface PersistenceMetricsDeps extends PersistenceGaugeSources {
  readonly fleet: PromRegistry;
}

export interface PersistenceMetricsSink {
  /** svc_persistence_write_duration_seconds{op}: call on every attempt, failed ones included. */
  observeWrite(op: WriteOp, seconds: number): void;
  /** svc_agents_purged_total: rows deleted by one purge run. */
  purged(rows: number): void;
}

export function registerPersistenceMetrics(deps: PersistenceMetricsDeps): PersistenceMetricsSink {
  const fleet = [deps.fleet];
  const writes = new Histogram({
    name: 'svc_persistence_write_duration_seconds',
    help: 'Persistence write duration in seconds, recorded on every attempt.',
    labelNames: ['op'],
    registers: fleet,
  });
  const timeouts = new Gauge({
    name: 'svc_persistence_write_timeout_seconds',
    help: 'Configured timeout of each persistence operation.',
    labelNames: ['op'],
    registers: fleet,
  });
  for (const [op, seconds] of Object.entries(deps.writeTimeoutSeconds)) timeouts.set({ op }, seconds);
  new Gauge({
    name: 'svc_persistence_pool_acquired_conns',
    help: 'Pool connections in use.',
    registers: fleet,
    collect() {
      this.set(deps.pool().acquired);
    },
  });
  new Gauge({
    name: 'svc_persistence_pool_max_conns',
    help: 'Configured maximum pool size.',
    registers: fleet,
    collect() {
      this.set(deps.pool().max);
    },
  });
  const purgedRows = new Counter({
    name: 'svc_agents_purged_total',
    help: 'Soft-deleted agent rows removed by the purge job.',
    registers: fleet,
  });
  return {
    observeWrite: (op, seconds) => writes.observe({ op }, seconds),
    purged: (rows) => {
      if (rows > 0) purgedRows.inc(rows);
    },
  };
}

/** svc_list_agents_store_fallback_errors_total{surface}: counts one list degraded to registry-only. */
export function registerStoreFallbacks(server: PromRegistry): (surface: ListSurface) => void {
  const fallbacks = new Counter({
    name: 'svc_list_agents_store_fallback_errors_total',
    help: 'Fleet-wide list requests whose database merge failed and degraded to registry-only.',
    labelNames: ['surface'],
    registers: [server],
  });
  for (const surface of ['api', 'ui'] as const) fallbacks.inc({ surface }, 0);
  return (surface) => fallbacks.inc({ surface });
}
