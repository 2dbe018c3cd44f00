// A config_rollout whose revision an agent rolls back (the project's opamp-go agent with
// `-rollback-on`, PostgreSQL as rollouts need it): the target counts as failed, `max_failed` trips and
// pauses the job, the revision is offered once, and after the job is rolled back a new revision of
// the config is offered and applied. Over WebSocket and plain HTTP.

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/app.ts';
import { apiToken } from '../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { startApp } from '../support/startApp.ts';
import { eventually } from '../persistence/eventually.ts';
import type { Transport } from './support/collectorPeers.ts';
import { agentWhen, apiGet, type Json } from './support/fleetApi.ts';
import { linesOf, rollbackArgs, startGoAgent } from './support/goAgent.ts';
import { countOffers, type OfferCount } from './support/offerCount.ts';
import type { PeerProcess } from './support/peerProcess.ts';

const token = 'interop-admin';
const remoteOf = (a: Json) => a.remote_config as Json;

describe('a rollout whose revision an agent rolls back (opamp-go client, real peer, PostgreSQL)', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let app: App;
  let offers: OfferCount;
  let agent: PeerProcess | undefined;
  beforeEach(async () => {
    db = await createTestDatabase();
    app = await startApp({
      config: { database: db.config, auth: { api_tokens: [apiToken('operator', token, 'admin')] } },
    });
    offers = countOffers(app);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && agent) console.log(agent.output().slice(-6_000));
    await agent?.stop();
    agent = undefined;
    offers.stop();
    await app.stop();
    await db.drop();
  });
  const write = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${app.urls.ui}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Json;
    expect(res.status, `${method} ${path}: ${JSON.stringify(json)}`).to.be.lessThan(300);
    return json;
  };
  const jobWhen = (id: string, status: string) =>
    eventually(
      async () => {
        const job = (await apiGet(app, `/api/jobs/${id}`, token)).json;
        return job.status === status && job;
      },
      `job ${id} to be ${status}`,
      { timeoutMs: 60_000, everyMs: 300 },
    );

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`over ${transport}: the target fails, max_failed pauses the job, the revision is offered once`, async function () {
      const uid = randomUUID();
      const peer = startGoAgent(this, { opampUrl: app.urls.opamp, transport, uid, args: rollbackArgs });
      agent = peer;
      const name = `agent-${uid.slice(0, 8)}`;
      await write('POST', '/api/configs', {
        name,
        selector: `service.instance.id=${uid}`,
        body: 'base: 1\n',
      });
      const first = await agentWhen(app, uid, (a) => a.config_state === 'applied', 'revision 1 applied');
      const good = String(remoteOf(first).reported_hash);

      await write('PUT', `/api/configs/${name}`, { revision: 1, body: 'fail-at-start: true\n', draft: true });
      const job = await write('POST', '/api/jobs', {
        filter: `match=service.instance.id=${uid}`,
        action: 'config_rollout',
        action_config: { config: name, revision: 2, gates: { max_failed: 0 } },
        submitted_by: 'interop spec',
      });
      const id = String(job.id);
      await write('POST', `/api/jobs/${id}/arm`, {});
      const paused = await jobWhen(id, 'paused');
      expect(paused.gate).to.deep.include({ gate: 'max_failed', limit: 0, count: 1, agents: [uid] });
      expect(paused.target_counts).to.include({ failed: 1 });
      const rolledBack = await agentWhen(app, uid, (a) => a.config_state === 'rolled_back', 'the rollback');
      const bad = String(remoteOf(rolledBack).desired_hash);
      // The agent's FAILED for the revision comes before its APPLIED for the old one: the target
      // fails with the agent's own text (straight from APPLYING to the old one: "rolled back to").
      const [target] = paused.targets as Json[];
      expect(target).to.include({ instance_uid: uid, state: 'failed' });
      expect(target?.reason).to.equal(
        `the agent failed to start with config ${bad}; rolling back to ${good}`,
      );
      expect(remoteOf(rolledBack)).to.include({ reported_hash: good, rolled_back_from: bad });
      const seq = BigInt(String(rolledBack.sequence_num));
      await agentWhen(app, uid, (a) => BigInt(String(a.sequence_num)) > seq + 3n, 'more check-ins');
      expect(offers.offersOf(uid, bad), 'offered by the service').to.equal(1);
      expect(linesOf(peer, `config received ${bad}`), 'received by the agent').to.equal(1);

      const ended = await write('POST', `/api/jobs/${id}/rollback`, { reason: 'the agent rolled back' });
      expect(ended).to.include({ status: 'failed' });
      await write('PUT', `/api/configs/${name}`, { revision: 2, body: 'fixed: true\n' });
      const fixed = await agentWhen(
        app,
        uid,
        (a) => a.config_state === 'applied' && ![good, bad].includes(String(remoteOf(a).reported_hash)),
        'the next revision applied',
      );
      const next = String(remoteOf(fixed).reported_hash);
      expect(fixed.effective_config).to.deep.equal({ [name]: 'fixed: true\n' });
      expect(offers.offersOf(uid, next)).to.equal(1);
      expect(linesOf(peer, `config applied ${next}`)).to.equal(1);
    });
  }
});
