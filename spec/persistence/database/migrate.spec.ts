import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type pg from 'pg';
import { migrationsDirectory } from '../../../src/persistence/database/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../..', import.meta.url));
/** Every migration file, in the order they apply (numbers may have gaps). */
const migrations = readdirSync(migrationsDirectory)
  .filter((f) => f.endsWith('.sql'))
  .sort();

describe('npm run migrate (rule 21)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let sql: pg.Client;
  let dir: string;
  let file: string;

  before(async () => {
    db = await createTestDatabase();
    sql = await db.client();
    dir = mkdtempSync(join(tmpdir(), 'svc-migrate-'));
    file = join(dir, 'config.yaml');
    writeFileSync(file, JSON.stringify({ database: db.config, log: { format: 'json' } }));
  });
  after(async () => {
    await sql.end();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const migrate = () =>
    run(process.execPath, ['tools/migrate.ts', '-config', file], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
    });

  it('applies the service migrations and the job queue schema, each with its own version table', async () => {
    await migrate();
    const applied = await sql.query<{ name: string }>(
      'SELECT name FROM atdatabases_migrations_applied ORDER BY index',
    );
    expect(applied.rows.map((r) => r.name)).to.deep.equal(migrations);
    expect(migrations.slice(0, 6)).to.deep.equal([
      '00001-agents.sql',
      '00002-agent-session.sql',
      '00003-agent-effective-config.sql',
      '00004-jobs.sql',
      '00005-change-positions.sql',
      '00006-session-connection-guard.sql',
    ]);
    const boss = await sql.query<{ version: number }>('SELECT version FROM pgboss.version');
    expect(boss.rows[0]?.version).to.be.a('number');
  });

  it('is idempotent, and several runs at once serialise on the advisory lock', async () => {
    await Promise.all([migrate(), migrate(), migrate()]);
    const applied = await sql.query('SELECT count(*)::int AS n FROM atdatabases_migrations_applied');
    expect(applied.rows[0]).to.deep.equal({ n: migrations.length });
  });

  it('refuses to run without database.host', async () => {
    writeFileSync(join(dir, 'empty.yaml'), '{}');
    const failed = await run(process.execPath, ['tools/migrate.ts', '-config', join(dir, 'empty.yaml')], {
      cwd: root,
    }).catch((e: { code: number }) => e);
    expect((failed as { code: number }).code).to.equal(2);
  });
});
