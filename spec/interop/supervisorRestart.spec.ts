// A restart job restarts a supervised Collector (the real OpAMP supervisor and Collector, with
// PostgreSQL as jobs need it): the supervisor restarts the Collector, the Collector's health reports a
// new start time, and the job counts the target `succeeded`.

import { expect } from 'chai';
import type { App } from '../../src/app.ts';
import type { FleetEvent } from '../../src/events/fleetEvent.ts';
import { apiToken } from '../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { startApp } from '../support/startApp.ts';
import { eventually } from '../persistence/eventually.ts';
import { startSupervisor, type RunningPeer, type Transport } from './support/collectorPeers.ts';
import { agentWhen, apiGet, type Json } from './support/fleetApi.ts';

const token = 'interop-admin';

describe('a restart job restarts a supervised Collector (real peers, PostgreSQL)', function () {
  this.timeout(180_000);
  let db: TestDatabase;
  let app: App;
  let peer: RunningPeer | undefined;
  beforeEach(async () => {
    db = await createTestDatabase();
    app = await startApp({
      config: { database: db.config, auth: { api_tokens: [apiToken('operator', token, 'admin')] } },
    });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && peer) console.log(peer.process.output().slice(-8_000));
    await peer?.stop();
    peer = undefined;
    await app.stop();
    await db.drop();
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${app.urls.ui}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`over ${transport}: the Collector comes back with a new health start time and the target succeeds`, async function () {
      // Over plain HTTP the command waits for the supervisor's next poll (every 30 s).
      peer = await startSupervisor(this, { transport, opampUrl: app.urls.opamp });
      const uid = peer.uid;
      const before = await agentWhen(app, uid, (a) => a.healthy === true, 'the Collector to run');
      const commands: string[] = [];
      const sub = app.bus.events$.subscribe((e: FleetEvent) => {
        if (e.type === 'AgentCommandSent') commands.push(e.data.uid);
      });
      try {
        const created = await post('/api/jobs', {
          filter: `match=service.instance.id=${uid}`,
          action: 'restart',
          action_config: { reconnect_timeout: '90s' },
          submitted_by: 'interop spec',
        });
        expect(created.status, JSON.stringify(created.json)).to.equal(201);
        const id = created.json.id as string;
        const armed = await post(`/api/jobs/${id}/arm`, {});
        expect(armed.status, JSON.stringify(armed.json)).to.equal(200);
        const done = await eventually(
          async () => {
            const job = (await apiGet(app, `/api/jobs/${id}`, token)).json;
            return ['succeeded', 'failed'].includes(job.status as string) && job;
          },
          `job ${id} to finish`,
          { timeoutMs: 150_000, everyMs: 500 },
        );
        expect(done.status, JSON.stringify(done)).to.equal('succeeded');
        expect(done.target_counts).to.include({ succeeded: 1 });
        expect(commands).to.deep.equal([uid]);
        const after = await agentWhen(
          app,
          uid,
          (a) => a.healthy === true && String(a.health_start_time) > String(before.health_start_time),
          'the Collector to run again, restarted',
        );
        expect(after.health_start_time).to.not.equal(before.health_start_time);
      } finally {
        sub.unsubscribe();
      }
    });
  }
});
