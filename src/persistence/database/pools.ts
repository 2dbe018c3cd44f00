// The connection pools. database.pool_max is split between a write pool (flush, session refresh,
// purge, the job queue) and a read pool (store reads of the API and UI), so a long flush can never
// take the connections a fleet list needs (the `partial` answer stays the exception).

import pg from 'pg';
import type { Logger } from '../../io/logger.ts';
import type { ConnectionSettings } from './connectionSettings.ts';

export interface Pools {
  readonly read: pg.Pool;
  readonly write: pg.Pool;
  /** Connections currently checked out of either pool. */
  acquired(): number;
  readonly max: number;
  end(): Promise<void>;
}

/** How pool_max is divided: writers get half (at least one), readers the rest (at least one). */
export function splitPool(poolMax: number): { read: number; write: number } {
  const write = Math.max(1, Math.floor(poolMax / 2));
  return { write, read: Math.max(1, poolMax - write) };
}

export interface PoolOptions {
  readonly poolMax: number;
  /** Client-side bound for one read query, ms. */
  readonly readTimeoutMs: number;
  readonly logger: Logger;
}

export function createPools(settings: ConnectionSettings, options: PoolOptions): Pools {
  const sizes = splitPool(options.poolMax);
  const base = {
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password,
    database: settings.database,
    ssl: settings.ssl,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    application_name: 'opamp-fleet-server',
  };
  const read = new pg.Pool({ ...base, max: sizes.read, query_timeout: options.readTimeoutMs });
  const write = new pg.Pool({ ...base, max: sizes.write });
  // An idle client that loses its server emits 'error' on the pool; without a listener that
  // error would end the process (STYLE 11).
  for (const [name, pool] of [
    ['read', read],
    ['write', write],
  ] as const) {
    pool.on('error', (error) =>
      options.logger.warn({ err: error, pool: name }, 'idle database connection failed'),
    );
  }
  const inUse = (p: pg.Pool) => p.totalCount - p.idleCount;
  let ended: Promise<void> | undefined;
  return {
    read,
    write,
    max: sizes.read + sizes.write,
    acquired: () => inUse(read) + inUse(write),
    // Idempotent: a failed startup already ended the pools before stop() runs.
    end: () => (ended ??= Promise.all([read.end(), write.end()]).then(() => undefined)),
  };
}
