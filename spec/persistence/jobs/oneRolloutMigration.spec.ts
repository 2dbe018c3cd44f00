// Migration 00010 on a database where rollouts of one config already overlap (armed concurrently
// before the index existed): the earliest armed keeps going, the others are cancelled with a job
// event saying why and their unreleased targets cancelled, and the index then holds.

import { expect } from 'chai';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations, migrationsDirectory } from '../../../src/persistence/database/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';

const rollout = (id: string, config: string, status: string, armedAt: string) => ({
  text: `INSERT INTO jobs (id, filter, action, action_config, status, submitted_by, created_at, armed_at)
VALUES ($1, '', 'config_rollout', $2::jsonb, $3, 'spec', now(), $4::timestamptz)`,
  values: [id, JSON.stringify({ config, revision: 2 }), status, armedAt],
});
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('migration 00010 on rollouts that already overlap (PostgreSQL)', function () {
  this.timeout(30_000);
  let db: TestDatabase;
  let client: pg.Client;
  let earlier: string;

  before(async () => {
    db = await createTestDatabase();
    const settings = connectionSettings({ ...db.config, pool_max: 1 });
    earlier = mkdtempSync(join(tmpdir(), 'svc-migrations-'));
    for (const file of readdirSync(migrationsDirectory).filter((f) => f < '00010'))
      cpSync(join(migrationsDirectory, file), join(earlier, file));
    await applyServiceMigrations(settings, earlier);
    client = await db.client();
    await client.query(rollout(id(1), 'web', 'paused', '2026-01-02T00:00:00Z'));
    await client.query(rollout(id(2), 'web', 'running', '2026-01-01T00:00:00Z'));
    await client.query(rollout(id(3), 'web', 'armed', '2026-01-03T00:00:00Z'));
    await client.query(rollout(id(4), 'db', 'running', '2026-01-04T00:00:00Z'));
    await client.query(
      `INSERT INTO job_targets (job_id, instance_uid, state) VALUES ($1, 'a', 'pending'), ($1, 'b', 'in_flight')`,
      [id(1)],
    );
    await applyServiceMigrations(settings);
  });
  after(async () => {
    await client.end();
    await db.drop();
    rmSync(earlier, { recursive: true, force: true });
  });

  it('keeps the earliest armed rollout of a config and cancels the others, saying why', async () => {
    const jobs = await client.query<{ id: string; status: string }>(
      'SELECT id, status FROM jobs ORDER BY id',
    );
    expect(jobs.rows).to.deep.equal([
      { id: id(1), status: 'cancelled' },
      { id: id(2), status: 'running' },
      { id: id(3), status: 'cancelled' },
      { id: id(4), status: 'running' },
    ]);
    const events = await client.query<{ job_id: string; from_status: string; reason: string }>(
      "SELECT job_id, from_status, reason FROM job_events WHERE kind = 'cancel' ORDER BY job_id",
    );
    expect(events.rows.map((e) => [e.job_id, e.from_status])).to.deep.equal([
      [id(1), 'paused'],
      [id(3), 'armed'],
    ]);
    expect(events.rows[0]!.reason).to.include('another rollout of the same config was already active');
  });

  it('cancels the targets a cancelled rollout had not reached, and leaves the reached ones', async () => {
    const targets = await client.query<{ instance_uid: string; state: string }>(
      'SELECT instance_uid, state FROM job_targets WHERE job_id = $1 ORDER BY instance_uid',
      [id(1)],
    );
    expect(targets.rows).to.deep.equal([
      { instance_uid: 'a', state: 'cancelled' },
      { instance_uid: 'b', state: 'in_flight' },
    ]);
  });

  it('then refuses a second active rollout of the config', async () => {
    let error: (Error & { constraint?: string }) | undefined;
    await client.query(rollout(id(5), 'web', 'armed', '2026-01-05T00:00:00Z')).catch((e: unknown) => {
      error = e as Error & { constraint?: string };
    });
    expect(error?.constraint).to.equal('jobs_one_active_rollout_idx');
  });
});
