import { expect } from 'chai';
import type pg from 'pg';
import type { App } from '../../src/app.ts';
import { connectionSettings } from '../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations } from '../../src/persistence/database/migrate.ts';
import { agentMessage, description, newUid, WsAgent } from '../support/agentClient.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { startApp } from '../support/startApp.ts';
import { eventually } from './eventually.ts';

const effectiveConfig = (body: string) => ({
  configMap: { configMap: { 'collector.yaml': { body: Buffer.from(body), contentType: 'text/yaml' } } },
});

describe('persistence in the running service (PostgreSQL)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let sql: pg.Client;
  let app: App;

  before(async () => {
    db = await createTestDatabase();
    sql = await db.client();
    // A soft-deleted row past the retention, and one within it, for the startup purge run.
    await applyServiceMigrations(connectionSettings({ ...db.config, pool_max: 2 }));
    await sql.query(`INSERT INTO agents (instance_uid, first_seen, last_seen, updated_at, evicted_at) VALUES
      ('00000000-0000-4000-8000-000000000001', now(), now() - interval '3 hours', now() - interval '3 hours', now() - interval '2 hours'),
      ('00000000-0000-4000-8000-000000000002', now(), now() - interval '3 hours', now() - interval '3 hours', now() - interval '10 minutes')`);
    app = await startApp({ config: { database: db.config, fleet: { soft_delete_duration: '1h' } } });
  });
  after(async () => {
    await app.stop();
    await sql.end();
    await db.drop();
  });

  const rows = async (text: string, values: unknown[] = []) =>
    (await sql.query(text, values)).rows as Record<string, unknown>[];

  it('creates both schemas, each with its own version table (rule 21)', async () => {
    const tables = await rows(
      `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
       WHERE table_name IN ('agents', 'agent_session', 'agent_effective_config', 'jobs', 'atdatabases_migrations_version', 'version')
       ORDER BY 1`,
    );
    expect(tables.map((t) => t.name)).to.deep.equal([
      'pgboss.version',
      'public.agent_effective_config',
      'public.agent_session',
      'public.agents',
      'public.atdatabases_migrations_version',
      'public.jobs',
    ]);
  });

  it('saves a connected agent, its session and its effective config within one flush', async () => {
    const uid = newUid();
    const agent = await WsAgent.open(app.urls.opamp);
    try {
      await agent.send(
        agentMessage(uid, {
          agentDescription: description({ 'service.name': 'collector' }),
          effectiveConfig: effectiveConfig('a: 1'),
        }),
      );
      const [row] = await eventually(async () => {
        const r = await rows('SELECT * FROM agents WHERE instance_uid = $1', [uid]);
        return r.length > 0 && r;
      }, 'the agent row');
      expect(row?.identifying).to.deep.equal({ 'service.name': 'collector' });
      expect(row?.evicted_at).to.equal(null);
      // The row names this process as its holder, so this replica's lists leave it out by index.
      expect(row?.held_by)
        .to.be.a('string')
        .and.match(/:[0-9a-f-]{36}$/);
      const registryAgent = app.registry.get(uid as never);
      expect((row?.updated_at as Date).getTime()).to.equal(registryAgent?.lastSeen);
      const [session] = await rows('SELECT connected, transport FROM agent_session WHERE instance_uid = $1', [
        uid,
      ]);
      expect(session).to.deep.equal({ connected: true, transport: 'ws' });
      const configs = await rows(
        'SELECT filename, body FROM agent_effective_config WHERE instance_uid = $1',
        [uid],
      );
      expect(configs).to.deep.equal([{ filename: 'collector.yaml', body: 'a: 1' }]);
    } finally {
      await agent.close();
    }
  });

  it('records a planned job for POST /api/jobs', async () => {
    const res = await fetch(`${app.urls.ui}/api/jobs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        filter: 'env=prod',
        action: 'restart',
        submitted_by: 'ops',
        action_config: { backoff_cap: '30s' },
      }),
    });
    expect(res.status).to.equal(201);
    const job = (await res.json()) as Record<string, unknown>;
    expect(job).to.include({
      status: 'planned',
      filter: 'env=prod',
      action: 'restart',
      submitted_by: 'ops',
      target_mode: null,
    });
    const [stored] = await rows('SELECT * FROM jobs WHERE id = $1', [job.id]);
    expect(stored?.action_config).to.deep.equal({ backoff_cap: '30s' });
    expect((stored?.created_at as Date).toISOString()).to.equal(job.created_at);
  });

  it('purges soft-deleted rows past fleet.soft_delete_duration at startup and counts them (rule 17)', async () => {
    await eventually(async () => {
      const done = await rows(
        `SELECT state FROM pgboss.job WHERE name = 'purge-soft-deleted-agents' AND state = 'completed'`,
      );
      return done.length > 0;
    }, 'a completed startup purge run');
    const left = await rows(
      `SELECT instance_uid FROM agents WHERE instance_uid LIKE '00000000-0000-4000-8000-%'`,
    );
    expect(left).to.deep.equal([{ instance_uid: '00000000-0000-4000-8000-000000000002' }]);
    const fleet = await (await fetch(`${app.urls.telemetry}/metrics/fleet`)).text();
    expect(fleet).to.match(/^svc_agents_purged_total 1$/m);
  });

  it('shows the purge runs in the job-queue UI', async () => {
    const schedules = await rows(`SELECT cron FROM pgboss.schedule WHERE name = 'purge-soft-deleted-agents'`);
    expect(schedules).to.deep.equal([{ cron: '0 * * * *' }]);
    const page = await fetch(`${app.urls.ui}/jobs-ui/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/text\/html/);
    const queue = await fetch(`${app.urls.ui}/jobs-ui/queues/purge-soft-deleted-agents`);
    expect(queue.status).to.equal(200);
    expect(await queue.text()).to.include('purge-soft-deleted-agents');
  });

  it('registers the persistence metrics', async () => {
    const fleet = await (await fetch(`${app.urls.telemetry}/metrics/fleet`)).text();
    expect(fleet).to.match(/^svc_persistence_write_timeout_seconds\{op="save_agent"\} 5$/m);
    expect(fleet).to.match(/^svc_persistence_pool_max_conns 10$/m);
    expect(fleet).to.match(/^svc_persistence_pool_acquired_conns \d+$/m);
    expect(fleet).to.match(/^svc_persistence_write_duration_seconds_count\{op="save_agent"\} [1-9]/m);
    const server = await (await fetch(`${app.urls.telemetry}/metrics`)).text();
    expect(server).to.match(/^svc_list_agents_store_fallback_errors_total\{surface="api"\} 0$/m);
  });
});

describe('persistence switched off (rule 1)', () => {
  let app: App;
  before(async () => {
    app = await startApp();
  });
  after(() => app.stop());

  it('has no job-queue UI and no persistence metric', async () => {
    expect((await fetch(`${app.urls.ui}/jobs-ui/`)).status).to.equal(404);
    const fleet = await (await fetch(`${app.urls.telemetry}/metrics/fleet`)).text();
    const server = await (await fetch(`${app.urls.telemetry}/metrics`)).text();
    expect(fleet).to.not.match(/svc_persistence_|svc_agents_purged_total/);
    expect(server).to.not.match(/svc_list_agents_store_fallback_errors_total/);
  });

  it('answers every list with partial false', async () => {
    const body = (await (await fetch(`${app.urls.ui}/api/agents`)).json()) as { partial: boolean };
    expect(body.partial).to.equal(false);
  });
});
