import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';
import { VirtualClock } from '../../support/virtualTime.ts';
import { errorOf, request } from './apiClient.ts';

describe('GET /api/status and /api/attributes over a running service', () => {
  let app: App;
  let ws: WsAgent;
  const clock = new VirtualClock(Date.UTC(2026, 2, 1, 12, 0, 0));
  const api = (path: string) => request(`${app.urls.ui}${path}`);

  before(async () => {
    // A long heartbeat keeps the liveness sweep from evicting anyone while the clock moves.
    app = await startApp({
      config: { fleet: { heartbeat_interval: '1h' } },
      deps: { scheduler: clock.scheduler },
    });
    ws = await WsAgent.open(app.urls.opamp);
    await ws.send(
      agentMessage(newUid(), {
        agentDescription: description(
          { 'service.name': 'collector', Env: 'Prod-EU' },
          { 'host.name': 'node-a' },
        ),
        health: { healthy: true },
      }),
    );
    await postHttp(
      app.urls.opamp,
      agentMessage(newUid(), {
        agentDescription: description({ 'service.name': 'edge' }, { Env: 'staging' }),
        health: { healthy: false },
      }),
    );
    await postHttp(app.urls.opamp, agentMessage(newUid()));
  });
  after(async () => {
    await ws.close();
    await app.stop();
  });

  it('reports build identity, start time, uptime from the service clock and fleet counts', async () => {
    clock.advance(125_000);
    const r = await api('/api/status');
    expect(r.status).to.equal(200);
    expect(r.contentType).to.match(/^application\/json/);
    const body = r.json as Record<string, unknown>;
    expect(Object.keys(body).sort()).to.deep.equal([
      'agent_authentication',
      'commit',
      'fleet',
      'go_version',
      'started_at',
      'uptime_seconds',
      'version',
    ]);
    expect(body).to.include({
      started_at: '2026-03-01T12:00:00.000Z',
      uptime_seconds: 125,
      go_version: process.version,
    });
    expect(body.version).to.match(/^\d+\.\d+\.\d+/);
    expect(body.commit).to.be.a('string').and.not.equal('');
    expect(body.fleet).to.deep.include({
      total: 3,
      healthy: 1,
      unhealthy: 1,
      health_unknown: 1,
      awaiting_full_state: 1,
    });
  });

  it('lists distinct attribute keys of both maps, sorted', async () => {
    const r = await api('/api/attributes');
    expect(r.status).to.equal(200);
    expect(r.json).to.deep.equal({ keys: ['Env', 'host.name', 'service.name'] });
  });

  it('filters attribute keys by a case-insensitive substring', async () => {
    expect((await api('/api/attributes?prefix=NAME')).json).to.deep.equal({
      keys: ['host.name', 'service.name'],
    });
    expect((await api('/api/attributes?prefix=env')).json).to.deep.equal({ keys: ['Env'] });
  });

  it('lists distinct values of one key, sorted and filtered', async () => {
    expect((await api('/api/attributes/values?key=service.name')).json).to.deep.equal({
      key: 'service.name',
      values: ['collector', 'edge'],
    });
    expect((await api('/api/attributes/values?key=Env&prefix=eu')).json).to.deep.equal({
      key: 'Env',
      values: ['Prod-EU'],
    });
    expect((await api('/api/attributes/values?key=nope')).json).to.deep.equal({ key: 'nope', values: [] });
  });

  it('answers 400 with a JSON error when key is missing or empty', async () => {
    for (const path of [
      '/api/attributes/values',
      '/api/attributes/values?key=',
      '/api/attributes/values?prefix=a',
    ]) {
      const r = await api(path);
      expect(r.status, path).to.equal(400);
      expect(r.contentType).to.match(/^application\/json/);
      expect(errorOf(r)).to.equal('key is required');
    }
  });
});
