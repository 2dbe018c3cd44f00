// Schema migrations (SPEC durability rule 21): two independent migrators against one database, each
// with its own version table: @databases/pg-migrations for the service's numbered files in
// migrations/ (tables atdatabases_migrations_version / _applied), and pg-boss for its own schema
// (pgboss.version). Both run while this process holds a session-level advisory lock, so replicas
// that start at the same moment migrate one after the other.

import { fileURLToPath } from 'node:url';
import { applyMigrations, connect } from '@databases/pg-migrations';
import pg from 'pg';
import type { ConnectionSettings } from './connectionSettings.ts';

export const migrationsDirectory = fileURLToPath(new URL('../../../migrations', import.meta.url));

/** Arbitrary, fixed: the advisory lock every replica takes around migrations. */
export const migrationLockKey = 7_311_470_021;

/** `directory`: the migrations to apply (specs apply a prefix of them to test a later one). */
export async function applyServiceMigrations(
  settings: ConnectionSettings,
  directory = migrationsDirectory,
): Promise<void> {
  const connection = connect({
    connectionString: false,
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password,
    database: settings.database,
    ssl: settings.ssl === false ? 'disable' : settings.ssl,
    poolSize: 1,
    bigIntMode: 'bigint',
    // Failures surface as rejected migrations; an idle-connection error has nothing to add.
    onError: () => undefined,
  });
  try {
    await applyMigrations({ connection, migrationsDirectory: directory });
  } finally {
    await connection.dispose();
  }
}

/**
 * Runs the service migrations, then `migrateJobQueue` (pg-boss's migrator), under the advisory lock.
 * The lock lives on its own connection, so both migrators may use pools of any size meanwhile.
 */
export async function runMigrations(
  settings: ConnectionSettings,
  migrateJobQueue: () => Promise<void>,
): Promise<void> {
  const lock = new pg.Client({ ...settings, connectionTimeoutMillis: 10_000 });
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [migrationLockKey]);
    await applyServiceMigrations(settings);
    await migrateJobQueue();
  } finally {
    // Closing the session releases the lock even if the unlock below cannot be sent.
    await lock.query('SELECT pg_advisory_unlock($1)', [migrationLockKey]).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
}
