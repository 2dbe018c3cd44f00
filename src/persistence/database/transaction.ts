// One transaction on a pooled connection: BEGIN, the work, COMMIT; on any error ROLLBACK and rethrow.
// A connection whose rollback also failed is destroyed rather than returned to the pool.

import type pg from 'pg';

export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      broken = rollback instanceof Error ? rollback : new Error(String(rollback));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
