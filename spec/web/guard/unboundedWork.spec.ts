// Hostile input that used to hold the service: each worst case is at least 1 MiB (or the 100,000
// newlines of the report that froze a real service). Each is answered, showing at most maxShownBytes
// of a body, and /healthz answers meanwhile. Real service, real PostgreSQL, a real OpAMP agent over
// WebSocket. Why the work is bounded is specced where it is decided (codeView.spec.ts,
// highlight.spec.ts); how long these pages take is the `hostile-pages` benchmark's figure.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { connectAgent, type TestAgent } from '../pages/pagesHarness.ts';
import { healthzDuring } from './healthzDuring.ts';
import { raw } from './rawHttp.ts';

const adminToken = 'unbounded-admin-token';
const MiB = 1024 * 1024;
const json = { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` };

describe('unbounded work on agent- and user-supplied text', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let app: App;
  const agents: TestAgent[] = [];
  const url = (path: string) => `${app.urls.ui}${path}`;
  const reporting = async (files: Record<string, { body: string; contentType: string }>) => {
    const configMap: Record<string, { body: Buffer; contentType: string }> = {};
    for (const [name, f] of Object.entries(files))
      configMap[name] = { body: Buffer.from(f.body), contentType: f.contentType };
    const agent = await connectAgent(app, { fields: { effectiveConfig: { configMap: { configMap } } } });
    agents.push(agent);
    return agent.uid;
  };
  const meanwhile = <T>(work: () => Promise<T>) => healthzDuring(app.urls.telemetry, work);

  before(async () => {
    db = await createTestDatabase();
    app = await startApp({
      config: { database: db.config, auth: { api_tokens: [apiToken('ci', adminToken, 'admin')] } },
    });
    // The first page compiles its templates: not the cost under test.
    const plain = await reporting({ 'c.yaml': { body: 'a: 1\n', contentType: 'text/yaml' } });
    expect((await raw(url(`/agents/${plain}`))).status).to.equal(200);
    expect((await raw(url('/configs'))).status).to.equal(200);
  });
  after(async () => {
    for (const a of agents) await a.ws.close();
    await app?.stop();
    await db?.drop();
  });

  it('shows an effective config of 100,000 newlines without a content type as text', async () => {
    const uid = await reporting({ '': { body: '\n'.repeat(100_000), contentType: '' } });
    const { result } = await meanwhile(() => raw(url(`/agents/${uid}`)));
    expect(result.status).to.equal(200);
    expect(result.text).to.include('<span class="faint">text</span>');
  });

  it('shows 1 MiB worst cases for the language guess and the JSON highlighter', async () => {
    const uid = await reporting({
      newlines: { body: '\n'.repeat(MiB), contentType: '' },
      spaces: { body: `${' \n'.repeat(MiB / 2)}`, contentType: 'text/plain' },
      escapes: { body: `{"${'\\"'.repeat(120_000)}`, contentType: 'application/json' },
    });
    const { result } = await meanwhile(() => raw(url(`/agents/${uid}`)));
    expect(result.status).to.equal(200);
    // The two 1 MiB files are cut; the escapes stay under the cut, so the JSON highlighter scans them.
    expect(result.text.match(/Showing the first/g)).to.have.length(2);
  });

  it('shows a 1 MiB text/plain config on its page', async () => {
    const body = JSON.stringify({
      name: 'blank',
      selector: 'env=x',
      content_type: 'text/plain',
      body: '\n'.repeat(MiB - 16),
    });
    const created = await raw(url('/api/configs'), { method: 'POST', headers: json, body });
    expect(created.status, created.text).to.equal(201);
    const { result } = await meanwhile(() => raw(url('/configs/blank')));
    expect(result.status).to.equal(200);
    expect(result.text).to.include('Showing the first');
  });

  it('answers 400 to 1 MiB of nested JSON and of nested YAML', async () => {
    const deepJson = await meanwhile(() =>
      raw(url('/api/configs'), { method: 'POST', headers: json, body: '['.repeat(MiB) }),
    );
    expect(deepJson.result.status, deepJson.result.text).to.equal(400);
    expect(deepJson.result.text).to.include('deeper than 64 levels');
    const yaml = JSON.stringify({ name: 'deep', selector: 'env=x', body: '['.repeat(MiB - 64) });
    const deepYaml = await meanwhile(() =>
      raw(url('/api/configs'), { method: 'POST', headers: json, body: yaml }),
    );
    expect(deepYaml.result.status, deepYaml.result.text).to.equal(400);
  });
});
