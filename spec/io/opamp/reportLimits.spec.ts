// agents.limits in the running service: a report past a limit is answered BadRequest with the
// reason over both transports, counted in svc_opamp_refused_total{reason}, and changes nothing.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { opampRefusals } from '../../support/opampRefusals.ts';
import { startApp } from '../../support/startApp.ts';

const BadRequest = 1;

const refusals = opampRefusals;

const manyAttributes = (n: number) =>
  description(
    { 'service.name': 'crowded' },
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'])),
  );

describe('report limits (agents.limits) in the message path', () => {
  let app: App;
  before(async () => {
    app = await startApp({
      config: {
        agents: { limits: { attribute_count: 50, attribute_value_length: 64, status_error_length: 100 } },
      },
    });
  });
  after(() => app.stop());

  it('refuses a description with too many attributes over WebSocket, with the reason, and folds nothing', async () => {
    const before = await refusals(app);
    const ws = await WsAgent.open(app.urls.opamp);
    const uid = newUid();
    try {
      const reply = await ws.send(agentMessage(uid, { agentDescription: manyAttributes(60) }));
      expect(reply.errorResponse?.type).to.equal(BadRequest);
      expect(reply.errorResponse?.errorMessage).to.match(/attribute/);
      expect(app.registry.get(uid as never), 'nothing registered').to.equal(undefined);
      // The same agent within the limits is served on the same connection.
      const ok = await ws.send(agentMessage(uid, { agentDescription: manyAttributes(10) }));
      expect(ok.errorResponse ?? null).to.equal(null);
      expect(app.registry.get(uid as never)?.description?.identifying['service.name']).to.equal('crowded');
    } finally {
      await ws.close();
    }
    const after = await refusals(app);
    expect((after.attribute_count ?? 0) - (before.attribute_count ?? 0)).to.equal(1);
  });

  it('refuses an oversized value over plain HTTP with the reason in a ServerErrorResponse', async () => {
    const uid = newUid();
    const answer = await postHttp(
      app.urls.opamp,
      agentMessage(uid, { agentDescription: description({ 'service.name': 'x'.repeat(65) }) }),
    );
    expect(answer.status).to.equal(200);
    expect(answer.message?.errorResponse?.type).to.equal(BadRequest);
    expect(answer.message?.errorResponse?.errorMessage).to.match(/value/);
    expect(app.registry.get(uid as never)).to.equal(undefined);
    expect((await refusals(app)).attribute_value_length).to.equal(1);
  });

  it("refuses a config status whose error text is past status_error_length, and keeps the agent's last status", async () => {
    const uid = newUid();
    const ws = await WsAgent.open(app.urls.opamp);
    const failed = (errorMessage: string, sequenceNum: number) =>
      agentMessage(uid, {
        sequenceNum,
        agentDescription: description({ 'service.name': 'noisy' }),
        remoteConfigStatus: { lastRemoteConfigHash: Buffer.from('abcd', 'hex'), status: 3, errorMessage },
      });
    try {
      expect((await ws.send(failed('exporter refused', 0))).errorResponse ?? null).to.equal(null);
      const reply = await ws.send(failed('x'.repeat(101), 1));
      expect(reply.errorResponse?.type).to.equal(BadRequest);
      expect(reply.errorResponse?.errorMessage).to.equal(
        'error_message of remote_config_status exceeds agents.limits.status_error_length (101 > 100)',
      );
      expect(app.registry.get(uid as never)?.remoteConfigStatus?.errorMessage).to.equal('exporter refused');
    } finally {
      await ws.close();
    }
    expect((await refusals(app)).status_error_length).to.equal(1);
  });
});
