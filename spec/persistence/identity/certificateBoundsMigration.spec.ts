// Migration 00012 on certificates issued before it: the credential each was issued to is read back
// from `issued_by` (so its holder can still move to it), and none carries a selector or a gateway
// permission, which were never recorded.

import { expect } from 'chai';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations, migrationsDirectory } from '../../../src/persistence/database/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';

const issued = (serial: string, issuedBy: string) => ({
  text: `INSERT INTO agent_certificates (serial, instance_uid, not_before, not_after, issued_at, issued_by)
VALUES ($1, 'u', now(), now() + interval '1 day', now(), $2)`,
  values: [serial, issuedBy],
});

describe('migration 00012 on certificates issued before it (PostgreSQL)', function () {
  this.timeout(30_000);
  let db: TestDatabase;
  let client: pg.Client;
  let earlier: string;

  before(async () => {
    db = await createTestDatabase();
    const settings = connectionSettings({ ...db.config, pool_max: 1 });
    earlier = mkdtempSync(join(tmpdir(), 'svc-migrations-'));
    for (const file of readdirSync(migrationsDirectory).filter((f) => f < '00012'))
      cpSync(join(migrationsDirectory, file), join(earlier, file));
    await applyServiceMigrations(settings, earlier);
    client = await db.client();
    await client.query(issued('01', 'token:prod'));
    await client.query(issued('02', 'agent_certificate:spiffe://example.org/agent/u serial 01'));
    await client.query(issued('03', 'certificate:CN=collector, O=Corp serial 0c'));
    await client.query(issued('04', 'none'));
    await applyServiceMigrations(settings);
  });
  after(async () => {
    await client?.end();
    await db?.drop();
    rmSync(earlier, { recursive: true, force: true });
  });

  it('reads the credential each was issued to from issued_by, with no selector and no gateway', async () => {
    const rows = await client.query<unknown[]>({
      text: 'SELECT serial, issued_kind, issued_name, selector, gateway FROM agent_certificates ORDER BY serial',
      rowMode: 'array',
    });
    expect(rows.rows).to.deep.equal([
      ['01', 'token', 'prod', null, false],
      ['02', 'agent_certificate', 'spiffe://example.org/agent/u', null, false],
      ['03', 'certificate', 'CN=collector, O=Corp', null, false],
      ['04', null, null, null, false],
    ]);
  });
});
