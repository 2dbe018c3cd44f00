// Jobs that act, in one service with a real PostgreSQL and the project's simulator agents: a restart
// job restarts agents in batches, a rollout moves agents stage by stage and makes its revision
// current, a gate pauses a rollout and rollback restores the agents, a live job takes the agents that
// connect after it was armed, a cancelled job sends nothing more, and the API refuses what it must.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import { createFleet, type Fleet, type FleetOptions } from '../../../tools/simulate/fleet.ts';
import { eventually } from '../eventually.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { steadyFleet } from '../../support/steadyFleet.ts';

const token = 'jobs-spec-admin';
const auth = {
  api_tokens: [apiToken('operator', token, 'admin')],
};
const fleetOptions = steadyFleet({ agents: 12, transport: 'mix', restartMs: 50 });

type Json = Record<string, unknown>;

describe('jobs that act (one service, PostgreSQL, simulator agents)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let app: App;
  let fleet: Fleet | undefined;
  const api = async (method: string, path: string, body?: unknown, withToken = true) => {
    const res = await fetch(`${app.urls.ui}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...(withToken && { Authorization: `Bearer ${token}` }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const createJob = async (action: string, action_config: Json = {}, filter = 'connected=true') => {
    const r = await api('POST', '/api/jobs', { filter, action, action_config, submitted_by: 'spec' });
    expect(r.status).to.equal(201);
    return r.json.id as string;
  };
  const jobOf = async (id: string) => (await api('GET', `/api/jobs/${id}?limit=1000`)).json;
  const until = (id: string, status: string) =>
    eventually(
      async () => (await jobOf(id)).status === status && (await jobOf(id)),
      `job ${id} to be ${status}`,
    );

  // A service and a database per spec: agents of an earlier fleet must not be targets of a later job.
  beforeEach(async () => {
    db = await createTestDatabase();
    app = await startApp({ config: { database: db.config, auth, fleet: { heartbeat_interval: '5s' } } });
  });
  afterEach(async () => {
    await fleet?.stop();
    fleet = undefined;
    await app.stop();
    await db.drop();
  });
  const startFleet = async (over: Partial<FleetOptions> = {}) => {
    fleet = createFleet({ ...fleetOptions, url: app.urls.opamp, ...over });
    await fleet.start();
    await eventually(
      () => Promise.resolve(app.registry.size >= (over.agents ?? 12)),
      'the agents to register',
    );
    return fleet;
  };

  it('restarts every target in batches and records each move with its actor', async () => {
    const agents = await startFleet();
    const sent: string[] = [];
    const sub = app.bus.events$.subscribe((e: FleetEvent) => {
      if (e.type === 'AgentCommandSent') sent.push(e.data.uid);
    });
    try {
      const id = await createJob('restart', { reconnect_timeout: '20s', backoff_cap: 4 });
      const armed = await api('POST', `/api/jobs/${id}/arm`, {});
      expect(armed.status, JSON.stringify(armed.json)).to.equal(200);
      expect(armed.json).to.include({ status: 'armed', target_mode: 'snapshot' });
      const done = await until(id, 'succeeded');
      expect(done.target_counts).to.include({ succeeded: 12 });
      expect(done.stage, 'batches of 1, 2, 4, 4, then 1').to.equal(5);
      expect(new Set(sent).size).to.equal(12);
      expect(sent).to.have.length(12);
      expect(agents.snapshot().restarts).to.equal(12);
      const kinds = (done.events as { kind: string; actor: string }[]).map((e) => `${e.kind}:${e.actor}`);
      expect(kinds).to.deep.equal(['arm:operator', 'start:service', 'succeed:service']);
    } finally {
      sub.unsubscribe();
    }
  });

  it('lets agents that connect after a live job was armed join it, and restarts them too', async () => {
    await startFleet({ agents: 4 });
    // Batches of 1, 2, then the rest, a second apart: the newcomers connect during the first.
    const id = await createJob('restart', { reconnect_timeout: '20s', backoff_cap: '1s' });
    const armed = await api('POST', `/api/jobs/${id}/arm`, { target_mode: 'live' });
    expect(armed.status, JSON.stringify(armed.json)).to.equal(200);
    expect(armed.json).to.include({ target_mode: 'live' });
    const later = createFleet({ ...fleetOptions, agents: 3, url: app.urls.opamp });
    try {
      await later.start();
      const done = await until(id, 'succeeded');
      expect(done.target_counts).to.include({ succeeded: 7 });
      expect(later.snapshot().restarts).to.equal(3);
    } finally {
      await later.stop();
    }
  });

  it('rolls a draft revision out in stages and makes it current', async () => {
    const agents = await startFleet();
    const created = await api('POST', '/api/configs', {
      name: 'otel',
      selector: 'service.version=~".+"',
      body: 'a: 1\n',
    });
    expect(created.status).to.equal(201);
    await eventually(() => Promise.resolve(agents.snapshot().configs.applied === 12), 'revision 1 applied');
    const draft = await api('PUT', '/api/configs/otel', { revision: 1, body: 'a: 2\n', draft: true });
    expect(draft.json).to.include({ current_revision: 1, draft_revision: 2 });
    const id = await createJob('config_rollout', { config: 'otel', revision: 2, stages: [1, '50%', '100%'] });
    expect((await api('POST', `/api/jobs/${id}/arm`)).status).to.equal(200);
    const done = await until(id, 'succeeded');
    expect(done.stage).to.equal(3);
    expect(done.target_counts).to.include({ succeeded: 12 });
    expect((await api('GET', '/api/configs/otel')).json).to.include({ current_revision: 2 });
    const hashes = Object.keys(agents.snapshot().configs.byHash);
    expect(hashes).to.have.length(1);
  });

  it('pauses a rollout when max_failed trips, and rollback returns the targets to the revision they had', async () => {
    // The first 3 agents of this fleet (by slot) refuse every config they get.
    const agents = await startFleet({ configFailRate: 0.25 });
    await api('POST', '/api/configs', { name: 'gated', selector: 'service.version=~".+"', body: 'b: 1\n' });
    const settled = () => agents.snapshot().configs.applied + agents.snapshot().configs.failed === 12;
    await eventually(() => Promise.resolve(settled()), 'revision 1 received by every agent');
    const before = agents.snapshot().configs.byHash;
    await api('PUT', '/api/configs/gated', { revision: 1, body: 'b: 2\n', draft: true });
    const id = await createJob('config_rollout', {
      config: 'gated',
      revision: 2,
      stages: ['100%'],
      gates: { max_failed: 1 },
    });
    await api('POST', `/api/jobs/${id}/arm`);
    const paused = await until(id, 'paused');
    expect(paused.gate).to.include({ gate: 'max_failed', limit: 1 });
    expect((paused.gate as { agents: string[] }).agents.length).to.be.greaterThan(1);
    const rolledBack = await api('POST', `/api/jobs/${id}/rollback`, { reason: 'exporter refused' });
    expect(rolledBack.json).to.include({ status: 'failed' });
    await eventually(
      () => Promise.resolve(JSON.stringify(agents.snapshot().configs.byHash) === JSON.stringify(before)),
      'every agent back on revision 1',
    );
    expect((await api('GET', '/api/configs/gated')).json).to.include({ current_revision: 1 });
  });

  it('sends nothing more once a job is cancelled', async () => {
    const agents = await startFleet({ restartMs: 2000 });
    const id = await createJob('restart', { reconnect_timeout: '30s', backoff_cap: 1 });
    await api('POST', `/api/jobs/${id}/arm`);
    await eventually(() => Promise.resolve(agents.snapshot().restarts === 1), 'the first restart');
    const cancelled = await api('POST', `/api/jobs/${id}/cancel`);
    expect(cancelled.json).to.include({ status: 'cancelled' });
    // A command goes out only for a released target a replica claimed. Once the cancel committed,
    // every target is cancelled (the one whose command went out, and the 11 never released), and a
    // step, which locks the job row as the cancel did, releases only pending targets of a running
    // job: nothing is left that could be sent, without waiting to see that nothing was.
    const after = await jobOf(id);
    expect(after.target_counts).to.include({ cancelled: 12 });
    expect(
      Object.entries(after.target_counts as Record<string, number>).filter(([, n]) => n > 0),
    ).to.deep.equal([['cancelled', 12]]);
    expect(agents.snapshot().restarts).to.equal(1);
  });

  it('answers wrong moves with 409 and the status, unknown actions with 400, and refuses anonymous writes', async () => {
    const id = await createJob('reboot');
    const unknown = await api('POST', `/api/jobs/${id}/arm`);
    expect(unknown.status).to.equal(400);
    expect(unknown.json.error).to.equal(
      'action "reboot" is not one this service knows (restart, config_rollout)',
    );
    const planned = await createJob('restart');
    const wrong = await api('POST', `/api/jobs/${planned}/pause`);
    expect(wrong.status).to.equal(409);
    expect(wrong.json).to.include({ status: 'planned' });
    expect((await api('POST', `/api/jobs/${planned}/arm`, {}, false)).status).to.equal(403);
    expect((await api('POST', `/api/jobs/${planned}/rollback`)).status).to.equal(409);
    expect((await api('GET', '/api/jobs?status=planned')).json.jobs)
      .to.be.an('array')
      .with.length.greaterThan(0);
  });

  it("arms a restart written as SPEC's seed writes it, and refuses a backoff_cap that is no duration", async () => {
    const dispatch_at = new Date(Date.now() + 3_600_000).toISOString();
    const seed = await createJob('restart', { reconnect_timeout: '5m', backoff_cap: '10m' });
    const armed = await api('POST', `/api/jobs/${seed}/arm`, { dispatch_at });
    expect(armed.status, JSON.stringify(armed.json)).to.equal(200);
    expect(armed.json).to.include({ status: 'armed' });
    const bad = await createJob('restart', { backoff_cap: 'soon' });
    const refused = await api('POST', `/api/jobs/${bad}/arm`, { dispatch_at });
    expect(refused.status).to.equal(400);
    expect(refused.json.error).to.include('backoff_cap must be a duration such as 10m');
  });
});
