// The metrics port of persistence (STYLE 20: ports point inward). Persistence declares what it
// reports and what it offers to be read at scrape time; the composition root hands it an
// implementation (src/telemetry/persistenceMetrics.ts registers the SPEC's persistence metrics).

import type { WriteOp } from './database/writeOp.ts';

/** Read at scrape time. */
export interface PersistenceGauges {
  /** Configured write timeout of each operation, in seconds. */
  readonly writeTimeoutSeconds: Readonly<Record<WriteOp, number>>;
  /** Connections in use and the configured maximum (database.pool_max). */
  pool(): { readonly acquired: number; readonly max: number };
}

/** What persistence reports as it works. */
export interface PersistenceMetrics {
  /** Every write attempt, failed ones included. */
  observeWrite(op: WriteOp, seconds: number): void;
  /** Rows deleted by one purge run. */
  purged(rows: number): void;
}

/** Given the gauges, returns where persistence reports to (the root binds it to telemetry). */
export type PersistenceMetricsFactory = (gauges: PersistenceGauges) => PersistenceMetrics;
