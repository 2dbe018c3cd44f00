// Secrets in config bodies and agents' effective configs, as each kind of caller reads them through
// the JSON API and the pages: redacted for viewers and anonymous readers, whole for admins.
// Real service, real PostgreSQL, a real OpAMP agent.

import { expect } from 'chai';
import type { App } from '../../src/app.ts';
import { apiToken } from '../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { startApp } from '../support/startApp.ts';
import { raw } from './guard/rawHttp.ts';
import { connectAgent, type TestAgent } from './pages/pagesHarness.ts';

const admin = 'redaction-admin-token';
const viewer = 'redaction-viewer-token';
const tokens = [apiToken('ops', admin, 'admin'), apiToken('wall', viewer, 'viewer')];
const body = [
  'exporters:',
  '  otlphttp:',
  '    endpoint: https://collector.example:4318',
  '    headers:',
  '      authorization: Bearer live-bearer-7f3a',
  '  kafka:',
  '    password: ${env:KAFKA_PASSWORD}',
  '    client_secret: "cs-99aa"',
  '',
].join('\n');
const secrets = /live-bearer-7f3a|cs-99aa/;

describe('secrets in config bodies and effective configs', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let app: App;
  let agent: TestAgent;
  const read = (path: string, token?: string) =>
    raw(`${app.urls.ui}${path}`, {
      headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    });

  before(async () => {
    db = await createTestDatabase();
    app = await startApp({ config: { database: db.config, auth: { api_tokens: tokens } } });
    const created = await raw(`${app.urls.ui}/api/configs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` },
      body: JSON.stringify({ name: 'kafka', selector: 'env=prod', body }),
    });
    expect(created.status, created.text).to.equal(201);
    const effective = {
      configMap: { configMap: { 'c.yaml': { body: Buffer.from(body), contentType: 'text/yaml' } } },
    };
    agent = await connectAgent(app, { fields: { effectiveConfig: effective } });
  });
  after(async () => {
    await agent?.ws.close();
    await app?.stop();
    await db?.drop();
  });

  const apiPaths = () => ['/api/configs/kafka', '/api/configs/kafka/revisions/1', `/api/agents/${agent.uid}`];
  const pagePaths = () => ['/configs/kafka', `/agents/${agent.uid}`, `/partials/agents/${agent.uid}`];

  it('redacts secret values for a viewer and an anonymous reader, in the API and on the pages', async () => {
    for (const path of [...apiPaths(), ...pagePaths()])
      for (const token of [viewer, undefined]) {
        const r = await read(path, token);
        expect(r.status, path).to.equal(200);
        expect(r.text, path).to.not.match(secrets);
        expect(r.text, path).to.match(/&lt;redacted&gt;|<redacted>/);
        expect(r.text, path).to.include('https://collector.example:4318');
        expect(r.text, path).to.include('${env:KAFKA_PASSWORD}');
      }
  });

  it('says on the page that values are hidden and who sees them', async () => {
    const page = await read('/configs/kafka', viewer);
    expect(page.text).to.include('2 secret values are shown as &lt;redacted&gt;: only an admin sees them.');
  });

  it('shows an admin the bodies whole', async () => {
    for (const path of [...apiPaths(), ...pagePaths()]) {
      const r = await read(path, admin);
      expect(r.status, path).to.equal(200);
      expect(r.text, path).to.include('live-bearer-7f3a').and.include('cs-99aa');
      expect(r.text, path).to.not.include('redacted');
    }
    const api = JSON.parse((await read('/api/configs/kafka', admin)).text) as { body: string };
    expect(api.body).to.equal(body);
  });
});
