// One bounded write: a transaction on a write-pool connection, cut off after the write timeout, and
// retried a bounded number of times. Every attempt is timed (svc_persistence_write_duration_seconds).
// A timed-out attempt destroys its connection, so PostgreSQL rolls the transaction back and the
// next attempt starts clean.

import type pg from 'pg';

export type WriteOp = 'save_agent' | 'soft_delete_agent' | 'save_session';
export const writeOps: readonly WriteOp[] = ['save_agent', 'soft_delete_agent', 'save_session'];

export interface WritePolicy {
  readonly timeoutMs: number;
  /** Attempts after the first. */
  readonly retries: number;
  readonly backoffMs: number;
}

/** Write timeout 5 s (SPEC "Metrics and pool"); two retries with a short pause. */
export const defaultWritePolicy: WritePolicy = { timeoutMs: 5000, retries: 2, backoffMs: 250 };

export type ObserveWrite = (op: WriteOp, seconds: number, ok: boolean) => void;

export class WriteTimeoutError extends Error {
  constructor(op: WriteOp, ms: number) {
    super(`${op} did not finish within ${ms} ms`);
    this.name = 'WriteTimeoutError';
  }
}

async function attempt<T>(
  pool: pg.Pool,
  op: WriteOp,
  ms: number,
  work: (c: pg.PoolClient) => Promise<T>,
): Promise<T> {
  let client: pg.PoolClient | undefined;
  let released = false;
  let timedOut = false;
  // A failed or timed-out connection is destroyed (release with an error), never reused.
  const release = (error?: Error) => {
    if (client === undefined || released) return;
    released = true;
    client.release(error);
  };
  const run = (async () => {
    client = await pool.connect();
    if (timedOut) throw new WriteTimeoutError(op, ms);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      release();
      return result;
    } catch (error) {
      release(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  })();
  run.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      const error = new WriteTimeoutError(op, ms);
      // Ends the connection: the statement in flight fails and the server rolls back.
      release(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runWrite<T>(
  pool: pg.Pool,
  op: WriteOp,
  policy: WritePolicy,
  observe: ObserveWrite,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  for (let n = 0; ; n++) {
    const started = performance.now();
    try {
      const result = await attempt(pool, op, policy.timeoutMs, work);
      observe(op, (performance.now() - started) / 1000, true);
      return result;
    } catch (error) {
      observe(op, (performance.now() - started) / 1000, false);
      if (n >= policy.retries) throw error;
      await new Promise((resolve) => setTimeout(resolve, policy.backoffMs * (n + 1)));
    }
  }
}
