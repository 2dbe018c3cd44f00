import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { newUid } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';
import { connectAgent, failingStore, get, startSideUi, type TestAgent } from './pagesHarness.ts';

const yaml = 'receivers:\n  otlp: # main\n    endpoint: "0.0.0.0:4317"\n<script>alert(1)</script>: x\n';

describe('agent detail page and fragment (GET /agents/{id}, GET /partials/agents/{id})', () => {
  let app: App;
  let agent: TestAgent;

  before(async () => {
    app = await startApp();
    agent = await connectAgent(app, {
      identifying: { 'service.name': 'checkout', 'service.version': '2.1.0' },
      nonIdentifying: { 'host.name': 'node-7', 'os.type': 'linux' },
      fields: {
        capabilities: 0x805,
        health: {
          healthy: false,
          status: 'StatusRecoverableError',
          lastError: 'exporter down',
          componentHealthMap: {
            'pipeline:traces': { healthy: false, status: 'StatusRecoverableError', lastError: 'queue full' },
          },
        },
        effectiveConfig: {
          configMap: {
            configMap: { 'collector.yaml': { body: Buffer.from(yaml), contentType: 'text/yaml' } },
          },
        },
        packageStatuses: {
          packages: { 'otelcol-contrib': { name: 'otelcol-contrib', agentHasVersion: '0.98.0', status: 0 } },
        },
      },
    });
  });

  after(async () => {
    await agent.ws.close();
    await app.stop();
  });

  it('shows identity, connection, nested health, attributes, capabilities, configuration and packages', async () => {
    const res = await get(`${app.urls.ui}/agents/${agent.uid}`);
    expect(res.status).to.equal(200);
    const html = res.body;
    for (const text of ['checkout', agent.uid, 'node-7', '2.1.0', 'Connection', 'ws', 'direct', '127.0.0.1:'])
      expect(html).to.include(text);
    expect(html).to.include('exporter down');
    expect(html).to.include('pipeline:traces');
    expect(html).to.include('queue full');
    expect(html).to.include('<td>os.type</td><td>linux</td>');
    expect(html).to.include('<span class="cap on">reports status</span>');
    expect(html).to.include('<span class="cap on">reports health</span>');
    expect(html).to.include('<span class="cap">accepts packages</span>');
    expect(html).to.include('collector.yaml');
    expect(html).to.include('<span class="tok-key">receivers</span>');
    expect(html).to.include('<span class="tok-com"># main</span>');
    expect(html).to.include('otelcol-contrib');
    expect(html).to.include('0.98.0');
  });

  it('escapes configuration text instead of rendering it as markup', async () => {
    const res = await get(`${app.urls.ui}/agents/${agent.uid}`);
    expect(res.body).not.to.include('<script>alert(1)</script>');
    expect(res.body).to.include('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('serves the fragment with a refresh control that reloads it, and does not auto-poll', async () => {
    const res = await get(`${app.urls.ui}/partials/agents/${agent.uid.toUpperCase()}`);
    expect(res.status).to.equal(200);
    expect(res.body).to.match(/^<section id="agent-detail">/);
    expect(res.body).to.include(
      `hx-get="/partials/agents/${agent.uid}" hx-target="#agent-detail" hx-swap="outerHTML"`,
    );
    expect(res.body).not.to.include('hx-trigger');
    expect(res.body).not.to.include('<html');
  });

  it('answers an unknown agent, a malformed id and a store error with the same 404 body', async () => {
    const unknown = newUid();
    const side = await startSideUi(app, failingStore);
    try {
      for (const path of ['/agents/', '/partials/agents/']) {
        const miss = await get(`${app.urls.ui}${path}${unknown}`);
        const malformed = await get(`${app.urls.ui}${path}not-an-id`);
        const storeError = await get(`${side.url}${path}${unknown}`);
        expect([miss.status, malformed.status, storeError.status]).to.deep.equal([404, 404, 404]);
        expect(miss.body).to.include('Agent not found');
        expect(malformed.body).to.equal(miss.body);
        expect(storeError.body).to.equal(miss.body);
        expect(storeError.body).not.to.include('connection refused');
      }
      const logged = side.logs.map((l) => JSON.parse(l) as { msg: string; err?: { message: string } });
      expect(
        logged.some(
          (l) => l.msg.includes('agent store read failed') && l.err?.message === 'connection refused',
        ),
      ).to.equal(true);
    } finally {
      await side.close();
    }
  });

  it('serves a registry hit without consulting a failing store', async () => {
    const side = await startSideUi(app, failingStore);
    try {
      const res = await get(`${side.url}/agents/${agent.uid}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include('checkout');
    } finally {
      await side.close();
    }
  });
});
