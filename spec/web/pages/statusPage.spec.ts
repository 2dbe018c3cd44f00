import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { parseInstanceUid } from '../../../src/events/ids.ts';
import { startApp } from '../../support/startApp.ts';
import { connectAgent, get, type TestAgent } from './pagesHarness.ts';

const stat = (html: string, label: string) =>
  new RegExp(`<div class="label">${label}</div><div class="value">([^<]*)<`).exec(html)?.[1];

describe('status page and fragment (GET /status, GET /partials/status)', () => {
  let app: App;
  const agents: TestAgent[] = [];

  before(async () => {
    app = await startApp({ config: { ui: { poll_interval: '3s' } } });
    agents.push(await connectAgent(app, { identifying: { 'service.name': 'a' }, healthy: true }));
    agents.push(await connectAgent(app, { identifying: { 'service.name': 'b' }, healthy: false }));
    agents.push(await connectAgent(app, { identifying: { 'service.name': 'c' } }));
    await agents[2]!.ws.close();
    const closed = parseInstanceUid(agents[2]!.uid)!;
    while (app.registry.get(closed)?.connected !== false) await new Promise((r) => setImmediate(r));
  });

  after(async () => {
    for (const a of agents) await a.ws.close();
    await app.stop();
  });

  it('shows the fleet counts', async () => {
    const res = await get(`${app.urls.ui}/status`);
    expect(res.status).to.equal(200);
    expect(stat(res.body, 'Total')).to.equal('3');
    expect(stat(res.body, 'Connected')).to.equal('2');
    expect(stat(res.body, 'Disconnected')).to.equal('1');
    expect(stat(res.body, 'Healthy')).to.equal('1');
    expect(stat(res.body, 'Unhealthy')).to.equal('1');
    expect(stat(res.body, 'Health unknown')).to.equal('1');
    expect(stat(res.body, 'Awaiting full state')).to.equal('0');
  });

  it('shows version, commit, runtime, start time and uptime from the same data as /api/status', async () => {
    const api = (await (await fetch(`${app.urls.ui}/api/status`)).json()) as {
      version: string;
      commit: string;
      go_version: string;
    };
    const res = await get(`${app.urls.ui}/status`);
    expect(res.body).to.include(`<dd class="mono">${api.version}</dd>`);
    expect(res.body).to.include(`<dd class="mono">${api.commit}</dd>`);
    expect(res.body).to.include(`Node.js ${api.go_version}`);
    expect(res.body).to.include('<dt>Started</dt>');
    expect(res.body).to.include('<dt>Uptime</dt>');
  });

  it('polls the status fragment every ui.poll_interval', async () => {
    for (const path of ['/status', '/partials/status']) {
      const res = await get(`${app.urls.ui}${path}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include('hx-get="/partials/status" hx-trigger="every 3000ms"');
    }
    const fragment = await get(`${app.urls.ui}/partials/status`);
    expect(fragment.body).to.match(/^<section id="status"/);
  });
});

describe('status page and /api/status on agent authentication', () => {
  const authentication = async (app: App) => {
    const api = (await (await fetch(`${app.urls.ui}/api/status`)).json()) as {
      agent_authentication: { required: boolean; tokens: boolean };
    };
    const page = await get(`${app.urls.ui}/status`);
    return { api: api.agent_authentication, warned: page.body.includes('Agents are not authenticated') };
  };

  it('warns when any OpAMP client may claim any id', async () => {
    const app = await startApp();
    try {
      const { api, warned } = await authentication(app);
      expect(api).to.include({ required: false, tokens: false });
      expect(warned).to.equal(true);
    } finally {
      await app.stop();
    }
  });

  it('says nothing more when agents must present a token', async () => {
    const sha256 = createHash('sha256').update('agent-token').digest('hex');
    const app = await startApp({ config: { agents: { tokens: [{ name: 'fleet', sha256 }] } } });
    try {
      const { api, warned } = await authentication(app);
      expect(api).to.include({ required: true, tokens: true });
      expect(warned).to.equal(false);
    } finally {
      await app.stop();
    }
  });
});
