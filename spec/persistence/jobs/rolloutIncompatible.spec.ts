// A rollout whose revision names a component type some targets reported they lack (issue 24), in one
// service with a real PostgreSQL and real WebSocket agents: those targets are never sent it and fail
// at once with the missing types as the reason (docs/jobs.md), the others apply it, and the failure
// trips the job's max_failed gate (0 unless named) instead of waiting for the incompatible ones.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import { agentMessage, description, newUid, WsAgent, type ServerToAgent } from '../../support/agentClient.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { eventually } from '../eventually.ts';

const token = 'rollout-incompatible-admin';
// ReportsStatus | AcceptsRemoteConfig | ReportsRemoteConfig | ReportsAvailableComponents
const capabilities = 0x1 | 0x2 | 0x1000 | 0x4000;
const components = (exporters: string[]) => ({
  hash: Buffer.from(exporters.join(',')),
  components: {
    receivers: { subComponentMap: { nop: {} } },
    exporters: { subComponentMap: Object.fromEntries(exporters.map((e) => [e, {}])) },
  },
});
const hashOf = (m: ServerToAgent) => Buffer.from(m.remoteConfig?.configHash ?? []);
type Json = Record<string, unknown>;

/** A WebSocket agent that applies what it is sent. */
class Agent {
  readonly uid = newUid();
  private seq = 0;
  readonly ws: WsAgent;
  private constructor(ws: WsAgent) {
    this.ws = ws;
  }
  static async connect(app: App, exporters: string[]): Promise<Agent> {
    const agent = new Agent(await WsAgent.open(app.urls.opamp));
    const reply = await agent.ws.send(
      agentMessage(agent.uid, {
        capabilities,
        agentDescription: description({ 'service.name': 'rollout-incompat' }),
        availableComponents: components(exporters),
        remoteConfigStatus: { status: 0 },
      }),
    );
    await agent.apply(reply);
    return agent;
  }
  async apply(m: ServerToAgent): Promise<void> {
    if (m.remoteConfig == null) return;
    const status = { lastRemoteConfigHash: hashOf(m), status: 1 };
    await this.ws.send(
      agentMessage(this.uid, { capabilities, sequenceNum: ++this.seq, remoteConfigStatus: status }),
    );
  }
}

describe('a rollout whose revision some targets cannot run (PostgreSQL, WebSocket agents)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let app: App;
  const agents: Agent[] = [];
  before(async () => {
    db = await createTestDatabase();
    app = await startApp({
      config: { database: db.config, auth: { api_tokens: [apiToken('operator', token, 'admin')] } },
    });
  });
  after(async () => {
    for (const a of agents) await a.ws.close();
    await app.stop();
    await db.drop();
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.urls.ui}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };

  it('fails the targets that lack a type at once, never sends it to them, and its failure gate pauses the job', async () => {
    const selector = 'service.name=rollout-incompat';
    expect(
      (await api('POST', '/api/configs', { name: 'kafka', selector, body: 'exporters: {debug: {}}\n' }))
        .status,
    ).to.equal(201);
    const able = await Agent.connect(app, ['debug', 'kafka']);
    const lacking = await Agent.connect(app, ['debug']);
    agents.push(able, lacking);
    const offers: string[] = [];
    app.bus.events$.subscribe((e: FleetEvent) => {
      if (e.type === 'AgentRemoteConfigOffered') offers.push(e.data.uid);
    });
    await api('PUT', '/api/configs/kafka', {
      revision: 1,
      body: 'exporters: {debug: {}, kafka: {}}\n',
      draft: true,
    });
    const job = await api('POST', '/api/jobs', {
      filter: `match=${selector}`,
      action: 'config_rollout',
      action_config: { config: 'kafka', revision: 2 },
      submitted_by: 'spec',
    });
    expect(job.status, JSON.stringify(job.json)).to.equal(201);
    const id = job.json.id as string;
    expect((await api('POST', `/api/jobs/${id}/arm`)).status).to.equal(200);
    await able.apply(await able.ws.next());
    // max_failed is 0 when not named: the incompatible target's failure pauses the job.
    const done = await eventually(async () => {
      const j = (await api('GET', `/api/jobs/${id}?limit=100`)).json;
      const counts = j.target_counts as Record<string, number>;
      return j.status === 'paused' && counts.succeeded === 1 && j;
    }, 'the job to pause and the able agent to apply');
    expect(done.gate).to.deep.include({ gate: 'max_failed', limit: 0, count: 1, agents: [lacking.uid] });
    const targets = done.targets as { instance_uid: string; state: string; reason: string }[];
    const byUid = Object.fromEntries(targets.map((t) => [t.instance_uid, t]));
    expect(byUid[able.uid]).to.include({ state: 'succeeded' });
    expect(byUid[lacking.uid]).to.include({ state: 'failed', reason: 'incompatible: lacks exporters/kafka' });
    expect(offers).to.deep.equal([able.uid]);
    const detail = (await api('GET', `/api/agents/${lacking.uid}`)).json;
    expect(detail.remote_config).to.deep.include({
      config_state: 'incompatible',
      missing_components: { exporters: ['kafka'] },
    });
  });
});
