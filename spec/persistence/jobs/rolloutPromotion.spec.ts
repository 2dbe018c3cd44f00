// Promotion (docs/jobs.md "Finishing"), in one service with a real PostgreSQL and simulator agents: a
// rollout that ends with failed targets waits as awaiting_promotion, making nothing current, until an
// operator promotes it (who and why recorded) or rolls it back; and a promotion, automatic or decided,
// is published (RemoteConfigChanged) only once its transaction committed: a second connection, asked
// the moment the event is published, already sees the job ended and the revision current.

import { expect } from 'chai';
import type pg from 'pg';
import type { App } from '../../../src/app.ts';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import { createFleet, type Fleet } from '../../../tools/simulate/fleet.ts';
import { eventually } from '../eventually.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { steadyFleet } from '../../support/steadyFleet.ts';

const token = 'promotion-spec-admin';
const auth = { api_tokens: [apiToken('operator', token, 'admin')] };
type Json = Record<string, unknown>;

describe('rollout promotion (one service, PostgreSQL, simulator agents)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let app: App;
  let fleet: Fleet;
  let probe: pg.Client;
  /** What a second connection saw the moment each RemoteConfigChanged of `promo` was published. */
  let seen: Promise<{ revision: number; current: unknown; statuses: unknown[] }>[];
  let subscription: { unsubscribe(): void };

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.urls.ui}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const jobOf = async (id: string) => (await api('GET', `/api/jobs/${id}`)).json;
  const until = (id: string, status: string) =>
    eventually(async () => {
      const job = await jobOf(id);
      return job.status === status && job;
    }, `job ${id} to be ${status}`);

  beforeEach(async () => {
    db = await createTestDatabase();
    app = await startApp({ config: { database: db.config, auth, fleet: { heartbeat_interval: '5s' } } });
    probe = await db.client();
    seen = [];
    subscription = app.bus.events$.subscribe((e: FleetEvent) => {
      if (e.type !== 'RemoteConfigChanged' || e.data.config.name !== 'promo') return;
      // Sent on its own connection at once, while the publisher goes on: it sees what was committed.
      const revision = e.data.config.revision;
      seen.push(
        Promise.all([
          probe.query<{ current_revision: number }>(
            `SELECT current_revision FROM remote_configs WHERE name = 'promo'`,
          ),
          probe.query<{ status: string }>(`SELECT status FROM jobs ORDER BY created_at`),
        ]).then(([c, j]) => ({
          revision,
          current: c.rows[0]?.current_revision,
          statuses: j.rows.map((r) => r.status),
        })),
      );
    });
    // The first 3 agents (by slot) refuse every config they get.
    fleet = createFleet({
      ...steadyFleet({ agents: 12, transport: 'mix', restartMs: 50 }),
      configFailRate: 0.25,
      url: app.urls.opamp,
    });
    await fleet.start();
    await eventually(() => Promise.resolve(app.registry.size >= 12), 'the agents to register');
    await api('POST', '/api/configs', { name: 'promo', selector: 'service.version=~".+"', body: 'p: 1\n' });
    const settled = () => fleet.snapshot().configs.applied + fleet.snapshot().configs.failed === 12;
    await eventually(() => Promise.resolve(settled()), 'revision 1 received by every agent');
    await api('PUT', '/api/configs/promo', { revision: 1, body: 'p: 2\n', draft: true });
    await Promise.all(seen);
    seen.length = 0; // revision 1's publication: only what the rollouts publish counts below
  });
  afterEach(async () => {
    subscription.unsubscribe();
    await fleet.stop();
    await probe.end();
    await app.stop();
    await db.drop();
  });

  const rollout = async (gates: Json, filter = 'connected=true') => {
    const action_config = { config: 'promo', revision: 2, stages: ['100%'], gates };
    const created = await api('POST', '/api/jobs', {
      filter,
      action: 'config_rollout',
      action_config,
      submitted_by: 'spec',
    });
    const id = created.json.id as string;
    expect((await api('POST', `/api/jobs/${id}/arm`)).status).to.equal(200);
    return id;
  };

  it('waits for a decision when targets failed within the gates, and Promote makes the revision current', async () => {
    const id = await rollout({ max_failed: '50%' });
    const held = await until(id, 'awaiting_promotion');
    expect(held.target_counts).to.include({ failed: 3, succeeded: 9 });
    expect(held.allowed_actions).to.deep.equal(['cancel', 'rollback', 'promote']);
    expect(held.in_force).to.equal(
      'Revision 2 is in force for the 12 agents this rollout reached (3 failed); revision 1 stays current for the rest until the rollout is promoted or rolled back.',
    );
    expect((await api('GET', '/api/configs/promo')).json).to.include({ current_revision: 1 });
    expect(await Promise.all(seen), 'nothing made current').to.deep.equal([]);

    const promoted = await api('POST', `/api/jobs/${id}/promote`, { reason: 'the 3 run an old build' });
    expect(promoted.status, JSON.stringify(promoted.json)).to.equal(200);
    expect(promoted.json).to.include({ status: 'succeeded' });
    expect(promoted.json.in_force).to.equal(
      'Revision 2 became current for every agent when the rollout was promoted, although 3 agents failed it.',
    );
    expect((await api('GET', '/api/configs/promo')).json).to.include({ current_revision: 2 });
    const event = ((await jobOf(id)).events as Json[]).at(-1);
    expect(event).to.include({
      kind: 'promote',
      actor: 'operator',
      from_status: 'awaiting_promotion',
      to_status: 'succeeded',
      reason: 'the 3 run an old build',
    });
    const published = await eventually(
      () => Promise.resolve(seen.length > 0 && Promise.all(seen)),
      'published',
    );
    expect(published).to.deep.equal([{ revision: 2, current: 2, statuses: ['succeeded'] }]);
    expect((await api('POST', `/api/jobs/${id}/promote`)).status, 'a decision is taken once').to.equal(409);
  });

  it('returns every agent reached to the revision it had on Roll back, making nothing current', async () => {
    const before = fleet.snapshot().configs.byHash;
    const id = await rollout({ max_failed: 3 });
    await until(id, 'awaiting_promotion');
    const rolledBack = await api('POST', `/api/jobs/${id}/rollback`, { reason: 'not with failures' });
    expect(rolledBack.json).to.include({ status: 'failed' });
    expect(rolledBack.json.in_force).to.equal(
      'Revision 2 is in force for no agent: every agent this rollout reached was returned to revision 1.',
    );
    await eventually(
      () => Promise.resolve(JSON.stringify(fleet.snapshot().configs.byHash) === JSON.stringify(before)),
      'every agent back on revision 1',
    );
    expect((await api('GET', '/api/configs/promo')).json).to.include({ current_revision: 1 });
    expect(await Promise.all(seen)).to.deep.equal([]);
  });

  it('publishes an automatic promotion only after the step that made it committed', async () => {
    // Only the agents that apply every config (all but sim-host-0..2): it succeeds and promotes itself.
    const id = await rollout({}, `match=${encodeURIComponent('host.name=~"sim-host-([3-9]|1[01])"')}`);
    await until(id, 'succeeded');
    const published = await eventually(
      () => Promise.resolve(seen.length > 0 && Promise.all(seen)),
      'published',
    );
    expect(published).to.deep.equal([{ revision: 2, current: 2, statuses: ['succeeded'] }]);
  });
});
