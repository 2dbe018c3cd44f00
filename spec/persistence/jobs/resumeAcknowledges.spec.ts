// Resume after a gate trip (docs/jobs.md "Gates"), in one service with a real PostgreSQL and simulator
// agents that refuse every config: the operator who resumes accepts the failures seen so far, so the
// rollout goes on to its next stage, and only failures beyond those trip a gate again. The resume's
// job event says who accepted how many.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { createFleet, type Fleet } from '../../../tools/simulate/fleet.ts';
import { eventually } from '../eventually.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { steadyFleet } from '../../support/steadyFleet.ts';

const token = 'resume-spec-admin';
const auth = { api_tokens: [apiToken('operator', token, 'admin')] };
type Json = Record<string, unknown>;
/** The 3 agents that refuse every config (the first 3 slots of a fleet with configFailRate 0.25). */
const refusing = `match=${encodeURIComponent('host.name=~"sim-host-[0-2]"')}`;

describe('resume after a gate trip (one service, PostgreSQL, simulator agents)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let app: App;
  let fleet: Fleet;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.urls.ui}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const jobOf = async (id: string) => (await api('GET', `/api/jobs/${id}`)).json;
  const until = (id: string, what: string, test: (job: Json) => boolean) =>
    eventually(async () => {
      const job = await jobOf(id);
      return test(job) && job;
    }, `job ${id}: ${what}`);

  beforeEach(async () => {
    db = await createTestDatabase();
    app = await startApp({ config: { database: db.config, auth, fleet: { heartbeat_interval: '5s' } } });
    fleet = createFleet({
      ...steadyFleet({ agents: 12, transport: 'mix', restartMs: 50 }),
      configFailRate: 0.25,
      url: app.urls.opamp,
    });
    await fleet.start();
    await eventually(() => Promise.resolve(app.registry.size >= 12), 'the agents to register');
    await api('POST', '/api/configs', { name: 'resumed', selector: 'service.version=~".+"', body: 'r: 1\n' });
    const settled = () => fleet.snapshot().configs.applied + fleet.snapshot().configs.failed === 12;
    await eventually(() => Promise.resolve(settled()), 'revision 1 received by every agent');
    await api('PUT', '/api/configs/resumed', { revision: 1, body: 'r: 2\n', draft: true });
  });
  afterEach(async () => {
    await fleet.stop();
    await app.stop();
    await db.drop();
  });

  const rollout = async (stages: unknown[], gates?: Json) => {
    const action_config = { config: 'resumed', revision: 2, stages, ...(gates && { gates }) };
    const created = await api('POST', '/api/jobs', {
      filter: refusing,
      action: 'config_rollout',
      action_config,
      submitted_by: 'spec',
    });
    const id = created.json.id as string;
    expect((await api('POST', `/api/jobs/${id}/arm`)).status).to.equal(200);
    return id;
  };

  it('goes on to the next stage after Resume, and pauses again on a new failure (default gates)', async () => {
    const id = await rollout([1, '100%']);
    const paused = await until(id, 'paused by its canary', (j) => j.status === 'paused');
    expect(paused).to.include({ stage: 1 });
    expect(paused.gate).to.deep.include({ gate: 'max_failed', limit: 0, count: 1 });

    const resumed = await api('POST', `/api/jobs/${id}/resume`, { reason: 'read the logs' });
    expect(resumed.status, JSON.stringify(resumed.json)).to.equal(200);
    expect(resumed.json).to.include({ status: 'running', gate: null });
    expect(resumed.json.acknowledged).to.deep.equal({ failed: 1, unhealthy: 0, disconnected: 0 });

    // Before: the step after Resume tripped the canary's gate again on the same count, at stage 1.
    const again = await until(
      id,
      'stage 2 reached and paused again',
      (j) => j.status === 'paused' && j.stage === 2,
    );
    expect(again.gate).to.deep.include({ gate: 'max_failed', limit: 0, acknowledged: 1 });
    expect((again.gate as { count: number }).count).to.be.at.least(1);
    const events = again.events as Json[];
    const resume = events.find((e) => e.kind === 'resume');
    expect(resume).to.deep.include({
      actor: 'operator',
      from_status: 'paused',
      to_status: 'running',
      reason: 'read the logs; accepted 1 failed target(s) so far',
      details: { acknowledged: { failed: 1, unhealthy: 0, disconnected: 0 } },
    });
    expect(events.at(-1)).to.deep.include({ kind: 'trip', actor: 'service', to_status: 'paused' });
    expect(String(events.at(-1)!.reason)).to.match(
      /^max_failed exceeded: \d > 0 \(new, besides 1 accepted at resume\)$/,
    );
    expect((await api('GET', '/api/configs/resumed')).json).to.include({ current_revision: 1 });
  });

  it('lets new failures through up to the limit, and trips on the first beyond it', async () => {
    const id = await rollout([1, 2, '100%'], { max_failed: 1 });
    await until(id, 'paused by its canary', (j) => j.status === 'paused' && j.stage === 1);
    expect((await api('POST', `/api/jobs/${id}/resume`)).status).to.equal(200);
    // Stage 2's one failure is within max_failed 1 (besides the accepted canary); stage 3's is not.
    const again = await until(id, 'paused in stage 3', (j) => j.status === 'paused');
    expect(again).to.include({ stage: 3 });
    expect(again.gate).to.deep.include({ gate: 'max_failed', limit: 1, count: 2, acknowledged: 1 });
    expect(again.target_counts).to.include({ failed: 3 });
    const resume = (again.events as Json[]).find((e) => e.kind === 'resume');
    expect(resume).to.include({
      actor: 'operator',
      reason: 'resume by operator; accepted 1 failed target(s) so far',
    });

    // A second Resume accepts all 3: with every target finished, the failures wait for a decision.
    const second = await api('POST', `/api/jobs/${id}/resume`);
    expect(second.json.acknowledged).to.deep.equal({ failed: 3, unhealthy: 0, disconnected: 0 });
    await until(id, 'awaiting a decision', (j) => j.status === 'awaiting_promotion');
  });
});
